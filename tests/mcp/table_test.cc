// The shared table of MCP messages (core/mesh/testing/mcp_cases.h) through
// the stdio gateway: each case the gateway can meet on stdio goes through
// a mcp_proxy::Session in front of the real toolgate binary, whose server
// lists the table's tools (its manifest as an MCP tools/list, the approval
// rule as a --policy file). The gateway must answer what the gate answers
// (//core/mesh:gate_test) and Envoy's adapters answer
// (//server:envoy_mcp_table_test).
//
// Where stdio differs, by its contract (docs/gateway.md), the cases are
// left out, not bent: a batch is split and each call decided alone; a line
// that is not JSON, a message that is not a request and a tools/call
// without a readable name get JSON-RPC's own errors (-32700/-32600/
// -32602); a method other than tools/call passes through; an INVALID
// result becomes an isError tool result (its _meta carries the -32043
// data); answers are JSON lines (no HTTP status, no SSE).
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "client/mcp_proxy/session.h"
#include "client/toolgate_client.h"
#include "core/mesh/mcp_manifest.h"
#include "core/mesh/testing/mcp_cases.h"
#include "gtest/gtest.h"
#include "tests/testing/server_process.h"

namespace toolgate {
namespace mcp_proxy {
namespace {

using mesh::testing::AnswerCase;
using mesh::testing::ErrorsOf;
using mesh::testing::RequestCase;
using mesh::testing::Said;
using mesh::testing::ToString;

class Recorder : public Sink {
 public:
  void ToHost(absl::string_view line) override { host.emplace_back(line); }
  void ToServer(absl::string_view line, bool) override {
    server.emplace_back(line);
  }
  void Log(absl::string_view text) override { logs.emplace_back(text); }
  std::vector<std::string> host, server, logs;
};

class InlineExecutor : public Executor {
 public:
  bool Post(Task task) override {
    Completion done = task();
    if (done) done();
    return true;
  }
};

constexpr char kPrefix[] = "own-table-prefix";

// The table's manifest as the tools/list an MCP server would answer.
std::string McpTools() {
  const Json manifest = *ParseStrictJson(mesh::testing::kManifest);
  Json tools = Json::array();
  for (const Json& t : manifest["tools"]) {
    Json tool = {{"name", t["name"]},
                 {"description", t["name"]},
                 {"inputSchema", t["input_schema"]}};
    if (t.contains("output_schema")) tool["outputSchema"] = t["output_schema"];
    const std::string effect = t["side_effect"];
    tool["annotations"] = {{"readOnlyHint", effect == "read"},
                           {"destructiveHint", effect == "destructive"}};
    tools.push_back(tool);
  }
  return CanonicalJson(tools);
}

// A single tools/call whose params the gateway hands to the path (an
// object with a non-empty string name).
bool GatewayDecides(const std::string& body) {
  absl::StatusOr<Json> m = ParseStrictJson(body);
  if (!m.ok() || !m->is_object() || m->value("method", "") != "tools/call") {
    return false;
  }
  auto params = m->find("params");
  return params != m->end() && params->is_object() &&
         params->contains("name") && (*params)["name"].is_string() &&
         !(*params)["name"].get<std::string>().empty();
}

class GatewayTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.started());
    client_ = client::ToolGateClient::ForTarget(server_.address());
    SidecarOptions sidecar;
    sidecar.policy = *mesh::ParseMcpPolicy(
        R"({"tools":{"wire":{"policy":{"requires_approval":true}}}})");
    sidecar_ = std::make_unique<Sidecar>(client_.get(), sidecar, &stopping_);
    SessionOptions options;
    options.own_id_prefix = kPrefix;
    session_ = std::make_unique<Session>(options, sidecar_.get(), &executor_,
                                         &out_);
    session_->FromHost(
        R"({"jsonrpc":"2.0","id":"init","method":"initialize","params":{}})");
    session_->FromServer(
        R"({"jsonrpc":"2.0","id":"init","result":{"capabilities":{"tools":{}}}})");
    session_->FromHost(
        R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    session_->FromServer(std::string(R"({"jsonrpc":"2.0","id":")") + kPrefix +
                         R"(-1","result":{"tools":)" + McpTools() + "}}");
    ASSERT_TRUE(session_->run().has_value())
        << (out_.logs.empty() ? "" : out_.logs.back());
    out_.host.clear();
    out_.server.clear();
  }

  testutil::ServerProcess server_;
  std::unique_ptr<client::ToolGateClient> client_;
  std::atomic<bool> stopping_{false};
  std::unique_ptr<Sidecar> sidecar_;
  InlineExecutor executor_;
  Recorder out_;
  std::unique_ptr<Session> session_;
};

TEST_F(GatewayTableTest, RequestCases) {
  int ran = 0;
  for (const RequestCase& c : mesh::testing::RequestCases()) {
    if (!GatewayDecides(c.body)) continue;
    SCOPED_TRACE(c.name);
    ++ran;
    session_->FromHost(c.body);
    if (c.allowed) {
      EXPECT_TRUE(out_.host.empty()) << out_.host[0];
      ASSERT_EQ(out_.server.size(), 1u);
      // Forwarded as decided: the host's message, canonical.
      EXPECT_EQ(out_.server[0], CanonicalJson(*ParseStrictJson(c.body)));
      // Its answer, so that the id is free for the next case.
      const std::string id = CanonicalJson((*ParseStrictJson(c.body))["id"]);
      session_->FromServer(mesh::testing::msg::Result(
          id, mesh::testing::msg::kGood));
    } else {
      EXPECT_TRUE(out_.server.empty());
      ASSERT_EQ(out_.host.size(), 1u);
      std::vector<Said> want = c.errors;
      // The path denies an unreadable message without an id; stdio answers
      // the host's request under its own id (its host waits for it).
      const Json id = (*ParseStrictJson(c.body))["id"];
      for (Said& s : want) {
        if (s.id == "null") s.id = CanonicalJson(id);
      }
      EXPECT_EQ(ToString(ErrorsOf(*ParseStrictJson(out_.host[0]))),
                ToString(want));
    }
    out_.host.clear();
    out_.server.clear();
  }
  EXPECT_GE(ran, 4);  // call, invalid arguments, needs approval, inexact.
}

TEST_F(GatewayTableTest, AnswerCases) {
  int ran = 0;
  for (const AnswerCase& c : mesh::testing::AnswerCases()) {
    if (c.route != "mcp" || c.refused_early || c.status != 200 ||
        c.content_type != "application/json" || !GatewayDecides(c.request)) {
      continue;
    }
    const Json request = *ParseStrictJson(c.request);
    absl::StatusOr<Json> answer = ParseStrictJson(c.answer);
    if (!answer.ok() || !answer->is_object() ||
        answer->value("id", Json()) != request["id"]) {
      continue;  // Not a response to the call on stdio.
    }
    SCOPED_TRACE(c.name);
    ++ran;
    session_->FromHost(c.request);
    ASSERT_EQ(out_.server.size(), 1u);
    session_->FromServer(c.answer);
    ASSERT_EQ(out_.host.size(), 1u);
    const Json got = *ParseStrictJson(out_.host[0]);
    if (c.passed) {
      EXPECT_EQ(out_.host[0], c.answer);  // The server's bytes.
    } else if (c.label == "INVALID") {
      // -32043's data, under the isError result's _meta.
      ASSERT_TRUE(got.contains("result")) << out_.host[0];
      EXPECT_EQ(got["result"]["isError"], true);
      EXPECT_EQ(got["result"]["_meta"]["dev.toolgate/output"]["reason"],
                "invalid_tool_output");
      EXPECT_EQ(c.errors[0].code, mesh::kOutputInvalidCode);
    } else {
      EXPECT_EQ(ToString(ErrorsOf(got)), ToString(c.errors));
    }
    out_.host.clear();
    out_.server.clear();
  }
  EXPECT_GE(ran, 3);  // valid, invalid, tool error.
}

}  // namespace
}  // namespace mcp_proxy
}  // namespace toolgate
