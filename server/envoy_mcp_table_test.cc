// The shared table of MCP messages (core/mesh/testing/mcp_cases.h)
// through Envoy's adapters with a real engine: each request case as an
// ext_authz Check on an MCP route, each answer case as an ext_proc stream
// (request headers as ext_authz leaves them, the request body, the tool's
// answer). Both must answer what the gate answers (//core/mesh:gate_test),
// and ext_authz's allow must carry the headers ext_proc reads.
#include <string>
#include <vector>

#include "core/mesh/testing/mcp_cases.h"
#include "gtest/gtest.h"
#include "server/envoy_authz.h"
#include "server/envoy_common.h"
#include "server/envoy_ext_proc.h"

namespace toolgate {
namespace server {
namespace {

using envoy::service::auth::v3::CheckRequest;
using envoy::service::auth::v3::CheckResponse;
using envoy::service::ext_proc::v3::ProcessingRequest;
using envoy::service::ext_proc::v3::ProcessingResponse;
using mesh::testing::AnswerCase;
using mesh::testing::ErrorsOf;
using mesh::testing::RequestCase;
using mesh::testing::ToString;
namespace msg = mesh::testing::msg;

class McpTableTest : public testing::Test {
 protected:
  void SetUp() override {
    auto s = engine_.CreateSnapshot(mesh::testing::kManifest,
                                    ManifestFormat::kToolgate,
                                    mesh::testing::kSnapshotName);
    ASSERT_TRUE(s.ok()) << s.status();
    snapshot_ = (*s)->id();
  }

  CheckResponse Check(const std::string& body, const std::string& path,
                      bool rest, MeshOutcome* outcome) {
    CheckRequest request;
    auto* http =
        request.mutable_attributes()->mutable_request()->mutable_http();
    http->set_method("POST");
    http->set_path(path);
    (*http->mutable_headers())["content-type"] = "application/json";
    // A client's own route kind is overwritten on allow.
    (*http->mutable_headers())[std::string(kRouteHeader)] =
        rest ? "mcp" : "rest";
    http->set_raw_body(body);
    http->set_size(static_cast<int64_t>(body.size()));
    auto& ctx = *request.mutable_attributes()->mutable_context_extensions();
    ctx[std::string(kSnapshotSetting)] = mesh::testing::kSnapshotName;
    if (rest) ctx[std::string(kToolPathSetting)] = "/tools/{name}";
    return DecideCheck(&engine_, &grants_, request, CancelToken(), outcome);
  }

  static ProcessingRequest Headers(
      bool request, const std::vector<std::pair<std::string, std::string>>& h) {
    ProcessingRequest r;
    auto* headers =
        request ? r.mutable_request_headers() : r.mutable_response_headers();
    for (const auto& [k, v] : h) {
      auto* header = headers->mutable_headers()->add_headers();
      header->set_key(k);
      header->set_raw_value(v);
    }
    return r;
  }

  static ProcessingRequest Body(bool request, const std::string& bytes) {
    ProcessingRequest r;
    auto* body = request ? r.mutable_request_body() : r.mutable_response_body();
    body->set_body(bytes);
    body->set_end_of_stream(true);
    return r;
  }

  Engine engine_;
  RunGrants grants_;
  std::string snapshot_;
};

std::string HeaderValue(const CheckResponse& r, absl::string_view name) {
  for (const auto& h : r.ok_response().headers()) {
    if (h.header().key() == name) return h.header().value();
  }
  return "<absent>";
}

TEST_F(McpTableTest, ExtAuthzAnswersTheRequestTable) {
  for (const RequestCase& c : mesh::testing::RequestCases()) {
    SCOPED_TRACE(c.name);
    MeshOutcome outcome;
    const CheckResponse r = Check(c.body, "/mcp", false, &outcome);
    EXPECT_EQ(r.status().code() == 0, c.allowed);
    EXPECT_EQ(outcome.decision, c.label);
    if (c.allowed) {
      EXPECT_EQ(HeaderValue(r, kRouteHeader), "mcp");
      continue;
    }
    EXPECT_EQ(r.denied_response().status().code(), 200);
    EXPECT_EQ(ToString(ErrorsOf(Json::parse(r.denied_response().body()))),
              ToString(c.errors));
  }
}

TEST_F(McpTableTest, ExtProcAnswersTheAnswerTable) {
  for (const AnswerCase& c : mesh::testing::AnswerCases()) {
    SCOPED_TRACE(c.name);
    ExtProcSession session(&engine_, &grants_);
    std::vector<std::pair<std::string, std::string>> headers = {
        {":method", "POST"},
        {std::string(kSnapshotHeader), snapshot_},
        {std::string(kToolHeader), c.tool}};
    if (c.route != "-") headers.push_back({std::string(kRouteHeader), c.route});
    std::vector<std::pair<std::string, std::string>> answer_headers = {
        {":status", std::to_string(c.status)},
        {"content-type", c.content_type}};
    if (!c.content_encoding.empty()) {
      answer_headers.push_back({"content-encoding", c.content_encoding});
    }
    std::vector<ProcessingRequest> stream = {
        Headers(true, headers), Body(true, c.request),
        Headers(false, answer_headers), Body(false, c.answer)};
    ProcessingResponse last;
    size_t step = 0;
    bool done = false;
    for (; step < stream.size() && !done; ++step) {
      last = session.Step(stream[step], &done);
    }
    EXPECT_EQ(session.TakeOutcome().decision, c.label);
    if (c.passed) {
      EXPECT_FALSE(done);
      EXPECT_TRUE(last.has_response_body());
      continue;
    }
    ASSERT_TRUE(done);
    // Refused early: at the request body, before the tool server.
    EXPECT_EQ(step, c.refused_early ? 2u : 4u);
    EXPECT_EQ(last.immediate_response().status().code(), 502);
    EXPECT_EQ(ToString(ErrorsOf(Json::parse(last.immediate_response().body()))),
              ToString(c.errors));
  }
}

// Issue 28 part C: ext_authz says the route kind (overwriting the
// client's), ext_proc reads the answer by it and removes it upstream.
TEST_F(McpTableTest, RouteKindFromExtAuthzToExtProc) {
  const std::string body = msg::Call("6", "lookup", "{}");
  MeshOutcome outcome;
  const CheckResponse allowed = Check(body, "/tools/lookup", true, &outcome);
  ASSERT_EQ(allowed.status().code(), 0) << allowed.DebugString();
  EXPECT_EQ(HeaderValue(allowed, kRouteHeader), "rest");
  EXPECT_EQ(HeaderValue(allowed, kToolHeader), "lookup");
  ExtProcSession session(&engine_, &grants_);
  bool done = false;
  const ProcessingResponse first =
      session.Step(Headers(true, {{":method", "POST"},
                                  {std::string(kSnapshotHeader), snapshot_},
                                  {std::string(kToolHeader), "lookup"},
                                  {std::string(kRouteHeader), "rest"}}),
                   &done);
  const auto& removed =
      first.request_headers().response().header_mutation().remove_headers();
  EXPECT_NE(std::find(removed.begin(), removed.end(), kRouteHeader),
            removed.end());
  session.Step(Body(true, body), &done);
  session.Step(Headers(false, {{":status", "200"},
                               {"content-type", "text/event-stream"}}),
               &done);
  const ProcessingResponse last = session.Step(
      Body(false, msg::Sse({msg::kNote, R"({"tier":"pro"})"})), &done);
  ASSERT_TRUE(done);  // The REST tool's SSE is its answer: not JSON, refused.
  EXPECT_EQ(Json::parse(last.immediate_response().body())["error"]["code"],
            -32043);
}

}  // namespace
}  // namespace server
}  // namespace toolgate
