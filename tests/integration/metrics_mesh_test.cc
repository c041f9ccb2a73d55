// --metrics_listen for the mesh hook through the real binary: Envoy's
// ext_authz Check and ext_proc Process calls (made with the gRPC clients
// generated from Envoy's protos) move their rpc label's counters by exactly the calls made, with
// decisions from the closed lists of docs/mesh.md "Metrics", and mesh-run
// breakers and kill switches count.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "envoy/service/auth/v3/external_auth.grpc.pb.h"
#include "envoy/service/ext_proc/v3/external_processor.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/metrics_scrape.h"
#include "tests/testing/server_process.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace {

using envoy::service::auth::v3::Authorization;
using envoy::service::auth::v3::CheckRequest;
using envoy::service::auth::v3::CheckResponse;
using envoy::service::ext_proc::v3::ExternalProcessor;
using envoy::service::ext_proc::v3::ProcessingRequest;
using envoy::service::ext_proc::v3::ProcessingResponse;
using Headers = std::map<std::string, std::string>;

constexpr int kPermissionDenied = 7;

std::string ToolsCall(const std::string& tool, const std::string& args) {
  return R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":")" +
         tool + R"(","arguments":)" + args + "}}";
}

const char kTicketArgs[] = R"({"priority":"urgent","ticket_id":"TCK-004242"})";
const char kCustomerArgs[] = R"({"customer_id":"CUS-000001"})";
const char kValidResult[] =
    R"({"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":)"
    R"({"customer_id":"CUS-000001","name":"Ada","tier":"pro"}}})";
const char kInvalidResult[] =
    R"({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text",)"
    R"("text":"boom"}],"isError":true}})";
const char kToolsList[] = R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})";

void SetHeaders(const Headers& headers,
                envoy::config::core::v3::HeaderMap* map) {
  for (const auto& [key, value] : headers) {
    auto* h = map->add_headers();
    h->set_key(key);
    h->set_value(value);
  }
}

class MeshMetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    metrics_port_ = testutil::FreePort();
    ASSERT_GT(metrics_port_, 0);
    server_ =
        std::make_unique<testutil::ServerProcess>(std::vector<std::string>{
            "--metrics_listen=127.0.0.1:" + std::to_string(metrics_port_)});
    ASSERT_TRUE(server_->started());
    auto channel = grpc::CreateChannel(server_->address(),
                                       grpc::InsecureChannelCredentials());
    toolgate_ = v1::ToolGate::NewStub(channel);
    authz_ = Authorization::NewStub(channel);
    ext_proc_ = ExternalProcessor::NewStub(channel);
    tickets_ = SnapshotId("tickets");
    customers_ = SnapshotId("customers");
  }
  void TearDown() override { EXPECT_EQ(server_->Stop(), 0); }

  std::string SnapshotId(const std::string& name) {
    grpc::ClientContext ctx;
    v1::GetSnapshotRequest req;
    req.set_name(name);
    v1::GetSnapshotResponse resp;
    EXPECT_TRUE(toolgate_->GetSnapshot(&ctx, req, &resp).ok()) << name;
    return resp.snapshot_id();
  }

  std::map<std::string, double> Scrape() {
    return testutil::ParseExposition(testutil::HttpGet(
        "http://127.0.0.1:" + std::to_string(metrics_port_) + "/metrics"));
  }

  v1::OpenRunResponse Open(const std::string& snapshot, int max_rejects,
                           int kill_threshold) {
    grpc::ClientContext ctx;
    v1::OpenRunRequest req;
    req.set_snapshot_id(snapshot);
    req.set_model("mesh");
    req.set_max_consecutive_rejects(max_rejects);
    req.set_kill_switch_threshold(kill_threshold);
    req.set_kill_switch_window(kill_threshold);
    v1::OpenRunResponse resp;
    EXPECT_TRUE(toolgate_->OpenRun(&ctx, req, &resp).ok());
    return resp;
  }

  // One Check of an MCP request on a route naming `snapshot` (or none).
  CheckResponse Check(const std::string& body, const std::string& snapshot,
                      const v1::OpenRunResponse* run = nullptr,
                      const std::string& method = "POST") {
    CheckRequest req;
    auto* http = req.mutable_attributes()->mutable_request()->mutable_http();
    http->set_method(method);
    http->set_path("/mcp");
    (*http->mutable_headers())["content-type"] = "application/json";
    if (run != nullptr) {
      (*http->mutable_headers())["x-toolgate-run-id"] = run->run_id();
      (*http->mutable_headers())["x-toolgate-run-token"] = run->run_token();
    }
    http->set_raw_body(body);
    http->set_size(static_cast<int64_t>(body.size()));
    if (!snapshot.empty()) {
      (*req.mutable_attributes()
            ->mutable_context_extensions())["toolgate_snapshot"] = snapshot;
    }
    grpc::ClientContext ctx;
    CheckResponse resp;
    EXPECT_TRUE(authz_->Check(&ctx, req, &resp).ok());
    return resp;
  }

  // One ext_proc stream: the request's headers and body, then the answer's
  // headers and body. True when toolgate let the answer through.
  bool Process(const Headers& request_headers, const std::string& request,
               const std::string& answer) {
    grpc::ClientContext ctx;
    auto stream = ext_proc_->Process(&ctx);
    std::vector<ProcessingRequest> messages(4);
    SetHeaders(request_headers,
               messages[0].mutable_request_headers()->mutable_headers());
    messages[1].mutable_request_body()->set_body(request);
    messages[1].mutable_request_body()->set_end_of_stream(true);
    SetHeaders({{":status", "200"}, {"content-type", "application/json"}},
               messages[2].mutable_response_headers()->mutable_headers());
    messages[3].mutable_response_body()->set_body(answer);
    messages[3].mutable_response_body()->set_end_of_stream(true);
    bool passed = true;
    for (const ProcessingRequest& m : messages) {
      ProcessingResponse resp;
      if (!stream->Write(m) || !stream->Read(&resp)) break;
      if (resp.has_immediate_response()) {
        passed = false;
        break;
      }
    }
    stream->WritesDone();
    ProcessingResponse rest;
    while (stream->Read(&rest)) {
    }
    EXPECT_TRUE(stream->Finish().ok());
    return passed;
  }

  // A stream whose first message is an answer that is not toolgate's own
  // deny: a stream fault.
  bool ProcessFault() {
    grpc::ClientContext ctx;
    auto stream = ext_proc_->Process(&ctx);
    ProcessingRequest m;
    SetHeaders({{":status", "200"}},
               m.mutable_response_headers()->mutable_headers());
    ProcessingResponse resp;
    const bool answered = stream->Write(m) && stream->Read(&resp);
    stream->WritesDone();
    EXPECT_TRUE(stream->Finish().ok());
    return answered && !resp.has_immediate_response();
  }

  int metrics_port_ = 0;
  std::unique_ptr<testutil::ServerProcess> server_;
  std::unique_ptr<v1::ToolGate::Stub> toolgate_;
  std::unique_ptr<Authorization::Stub> authz_;
  std::unique_ptr<ExternalProcessor::Stub> ext_proc_;
  std::string tickets_;
  std::string customers_;
};

std::string Decisions(const std::string& rpc, const std::string& decision) {
  return "toolgate_decisions_total{decision=\"" + decision + "\",rpc=\"" + rpc +
         "\"}";
}

std::string Grant(const CheckResponse& resp) {
  for (const auto& h : resp.ok_response().headers()) {
    if (h.header().key() == "x-toolgate-run-grant") return h.header().value();
  }
  return "";
}

TEST_F(MeshMetricsTest, CountersMoveByExactlyTheMeshCallsMade) {
  const auto before = Scrape();
  ASSERT_FALSE(before.empty()) << "no /metrics on port " << metrics_port_;

  constexpr int kAllowed = 4, kRejected = 3;
  for (int i = 0; i < kAllowed; ++i) {
    ASSERT_EQ(Check(ToolsCall("update_ticket", kTicketArgs), "tickets")
                  .status()
                  .code(),
              0);
  }
  for (int i = 0; i < kRejected; ++i) {
    ASSERT_EQ(
        Check(ToolsCall("secret_tool_xyz", "{}"), "tickets").status().code(),
        kPermissionDenied);
  }
  ASSERT_EQ(Check("", "tickets", nullptr, "GET").status().code(),
            kPermissionDenied);                                // DENIED_REQUEST
  ASSERT_EQ(Check(kToolsList, "tickets").status().code(), 0);  // PASS_THROUGH
  // A breaker of 1 in a mesh run: the reject opens it, the next is STOP.
  const v1::OpenRunResponse breaker = Open(tickets_, 1, 5);
  Check(ToolsCall("secret_tool_xyz", "{}"), "", &breaker);
  ASSERT_EQ(Check(ToolsCall("update_ticket", kTicketArgs), "", &breaker)
                .status()
                .code(),
            kPermissionDenied);
  // A kill switch of 1 in a mesh run: its first INVALID answer trips it.
  const v1::OpenRunResponse watched = Open(customers_, 5, 1);
  const CheckResponse granted =
      Check(ToolsCall("get_customer", kCustomerArgs), "", &watched);
  ASSERT_EQ(granted.status().code(), 0);
  ASSERT_FALSE(Grant(granted).empty());
  const std::string call = ToolsCall("get_customer", kCustomerArgs);
  const Headers plain = {{":method", "POST"},
                         {":path", "/mcp"},
                         {"x-toolgate-snapshot", customers_}};
  ASSERT_TRUE(Process(plain, call, kValidResult));     // VALID
  ASSERT_FALSE(Process(plain, call, kInvalidResult));  // INVALID
  ASSERT_FALSE(Process({{":method", "POST"},
                        {":path", "/mcp"},
                        {"x-toolgate-run-id", watched.run_id()},
                        {"x-toolgate-run-grant", Grant(granted)}},
                       call, kInvalidResult));    // INVALID, trips
  ASSERT_TRUE(Process(plain, kToolsList, "{}"));  // PASS_THROUGH
  ASSERT_FALSE(ProcessFault());                   // DENIED

  const auto after = Scrape();
  auto delta = [&](const std::string& series) {
    EXPECT_TRUE(after.count(series) && before.count(series))
        << series << " missing";
    return after.count(series) && before.count(series)
               ? after.at(series) - before.at(series)
               : -1;
  };
  const std::string check = "ext_authz.Check", proc = "ext_proc.Process";
  EXPECT_EQ(delta(Decisions(check, "ALLOW")), kAllowed + 1);
  EXPECT_EQ(delta(Decisions(check, "REJECT")), kRejected + 1);
  EXPECT_EQ(delta(Decisions(check, "STOP")), 1);
  EXPECT_EQ(delta(Decisions(check, "NEEDS_APPROVAL")), 0);
  EXPECT_EQ(delta(Decisions(check, "PASS_THROUGH")), 1);
  EXPECT_EQ(delta(Decisions(check, "DENIED_REQUEST")), 1);
  EXPECT_EQ(delta(Decisions(check, "DENIED_RUN")), 0);
  EXPECT_EQ(delta(Decisions(check, "ERROR")), 0);
  EXPECT_EQ(delta(Decisions(proc, "VALID")), 1);
  EXPECT_EQ(delta(Decisions(proc, "INVALID")), 2);
  EXPECT_EQ(delta(Decisions(proc, "PASS_THROUGH")), 1);
  EXPECT_EQ(delta(Decisions(proc, "DENIED")), 1);
  EXPECT_EQ(delta(Decisions(proc, "ERROR")), 0);
  EXPECT_EQ(delta("toolgate_violations_total{code=\"unknown_tool\"}"),
            kRejected + 1);
  EXPECT_EQ(delta("toolgate_violations_total{code=\"mcp_is_error\"}"), 2);
  EXPECT_EQ(delta("toolgate_breaker_opened_total"), 1);
  EXPECT_EQ(delta("toolgate_kill_switch_trips_total"), 1);
  const int checks = kAllowed + kRejected + 2 + 2 + 1, streams = 5;
  for (const std::string& stat :
       std::vector<std::string>{"toolgate_rpc_duration_seconds_count",
                                "toolgate_input_bytes_count"}) {
    EXPECT_EQ(delta(stat + "{rpc=\"" + check + "\"}"), checks) << stat;
    EXPECT_EQ(delta(stat + "{rpc=\"" + proc + "\"}"), streams) << stat;
    // Mesh calls are not counted as toolgate.v1 RPCs too.
    EXPECT_EQ(delta(stat + "{rpc=\"ValidateToolCall\"}"), 0) << stat;
    EXPECT_EQ(delta(stat + "{rpc=\"ValidateToolOutput\"}"), 0) << stat;
  }
  // Denies are answers, not gRPC errors.
  for (const std::string& code :
       std::vector<std::string>{"UNAVAILABLE", "INTERNAL", "UNKNOWN"}) {
    EXPECT_EQ(delta("toolgate_rpc_errors_total{code=\"" + code + "\",rpc=\"" +
                    check + "\"}"),
              0);
    EXPECT_EQ(delta("toolgate_rpc_errors_total{code=\"" + code + "\",rpc=\"" +
                    proc + "\"}"),
              0);
  }
  // Request text never becomes a label value.
  const std::string text = testutil::HttpGet(
      "http://127.0.0.1:" + std::to_string(metrics_port_) + "/metrics");
  EXPECT_EQ(text.find("secret_tool_xyz"), std::string::npos);
  EXPECT_EQ(text.find("get_customer"), std::string::npos);
}

}  // namespace
}  // namespace toolgate
