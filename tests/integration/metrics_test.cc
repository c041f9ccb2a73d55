// --metrics_listen through the real binary: every counter moves by exactly
// the calls made, label values never carry request text, and promtool
// accepts the exposition.
#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/metrics_scrape.h"
#include "tests/testing/server_process.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace {

using testutil::FreePort;
using testutil::HttpGet;
using testutil::ParseExposition;

class MetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    metrics_port_ = FreePort();
    ASSERT_GT(metrics_port_, 0);
    server_ =
        std::make_unique<testutil::ServerProcess>(std::vector<std::string>{
            "--metrics_listen=127.0.0.1:" + std::to_string(metrics_port_)});
    ASSERT_TRUE(server_->started());
    stub_ = v1::ToolGate::NewStub(grpc::CreateChannel(
        server_->address(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext ctx;
    v1::GetSnapshotRequest req;
    req.set_name("tickets");
    v1::GetSnapshotResponse resp;
    ASSERT_TRUE(stub_->GetSnapshot(&ctx, req, &resp).ok());
    snapshot_ = resp.snapshot_id();
  }
  void TearDown() override { EXPECT_EQ(server_->Stop(), 0); }

  std::string Scrape() {
    return HttpGet("http://127.0.0.1:" + std::to_string(metrics_port_) +
                   "/metrics");
  }

  v1::ValidateToolCallResponse Call(const std::string& text,
                                    const v1::OpenRunResponse* run = nullptr,
                                    bool repair = false) {
    grpc::ClientContext ctx;
    v1::ValidateToolCallRequest req;
    if (run != nullptr) {
      req.set_run_id(run->run_id());
      req.set_run_token(run->run_token());
    } else {
      req.set_snapshot_id(snapshot_);
    }
    req.set_text(text);
    if (repair) req.set_repair(v1::REPAIR_POLICY_SYNTAX_REPAIR);
    v1::ValidateToolCallResponse resp;
    EXPECT_TRUE(stub_->ValidateToolCall(&ctx, req, &resp).ok());
    return resp;
  }

  v1::OpenRunResponse Open(int max_rejects, int kill_threshold) {
    grpc::ClientContext ctx;
    v1::OpenRunRequest req;
    req.set_snapshot_id(snapshot_);
    req.set_model("secret-model-name-xyz");
    req.set_max_consecutive_rejects(max_rejects);
    req.set_kill_switch_threshold(kill_threshold);
    req.set_kill_switch_window(kill_threshold);
    v1::OpenRunResponse resp;
    EXPECT_TRUE(stub_->OpenRun(&ctx, req, &resp).ok());
    return resp;
  }

  v1::ValidateToolOutputResponse Output(const std::string& body,
                                        const v1::OpenRunResponse* run) {
    grpc::ClientContext ctx;
    v1::ValidateToolOutputRequest req;
    if (run != nullptr) {
      req.set_run_id(run->run_id());
      req.set_run_token(run->run_token());
    } else {
      req.set_snapshot_id(snapshot_);
    }
    req.set_tool_name("get_ticket");
    req.set_content_type("application/json");
    req.set_http_status(200);
    req.set_body(body);
    v1::ValidateToolOutputResponse resp;
    EXPECT_TRUE(stub_->ValidateToolOutput(&ctx, req, &resp).ok());
    return resp;
  }

  v1::ExtractVerdictResponse Verdict(const std::string& envelope) {
    grpc::ClientContext ctx;
    v1::ExtractVerdictRequest req;
    req.set_envelope(envelope);
    v1::ExtractVerdictResponse resp;
    EXPECT_TRUE(stub_->ExtractVerdict(&ctx, req, &resp).ok());
    return resp;
  }

  int metrics_port_ = 0;
  std::unique_ptr<testutil::ServerProcess> server_;
  std::unique_ptr<v1::ToolGate::Stub> stub_;
  std::string snapshot_;
};

const char kAllowed[] =
    R"({"name":"update_ticket","arguments":{"priority":"urgent","ticket_id":"TCK-004242"}})";
const char kRepairable[] =
    R"({"name":"update_ticket","arguments":{"priority":"urgent","ticket_id":"TCK-004242",}})";
const char kUnknownTool[] = R"({"name":"secret_tool_xyz","arguments":{}})";

std::string Decisions(const std::string& rpc, const std::string& decision) {
  return "toolgate_decisions_total{decision=\"" + decision + "\",rpc=\"" + rpc +
         "\"}";
}

TEST_F(MetricsTest, CountersMoveByExactlyTheCallsMade) {
  const auto before = ParseExposition(Scrape());
  ASSERT_FALSE(before.empty()) << "no /metrics on port " << metrics_port_;

  constexpr int kAllowedCalls = 5, kRejectedCalls = 3;
  for (int i = 0; i < kAllowedCalls; ++i) {
    ASSERT_EQ(Call(kAllowed).decision(), v1::DECISION_ALLOW);
  }
  for (int i = 0; i < kRejectedCalls; ++i) {
    ASSERT_EQ(Call(kUnknownTool).decision(), v1::DECISION_REJECT);
  }
  auto repaired = Call(kRepairable, nullptr, /*repair=*/true);
  ASSERT_EQ(repaired.decision(), v1::DECISION_ALLOW);
  ASSERT_EQ(repaired.calls(0).repairs(0), "trailing_comma");
  // A breaker of 2: two rejects open it, the third call is STOP.
  const v1::OpenRunResponse run = Open(2, 1);
  Call(kUnknownTool, &run);
  Call(kUnknownTool, &run);
  ASSERT_EQ(Call(kAllowed, &run).decision(), v1::DECISION_STOP);
  // A kill switch of 1: the first INVALID output trips it, once.
  const v1::OpenRunResponse watched = Open(3, 1);
  ASSERT_TRUE(Output("[1,", &watched).read_only());
  ASSERT_TRUE(Output("[1,", &watched).read_only());
  ASSERT_EQ(Output(R"({"status":"open"})", nullptr).verdict(),
            v1::OUTPUT_VERDICT_VALID);
  ASSERT_EQ(Verdict("```json\n{\"verdict\":\"pass\",\"reason\":\"ok\"}\n```")
                .outcome(),
            v1::OUTCOME_PASS);
  ASSERT_EQ(Verdict("no block at all").outcome(), v1::OUTCOME_CONTRACT_STOP);
  {  // Two errors: an unknown snapshot.
    for (int i = 0; i < 2; ++i) {
      grpc::ClientContext ctx;
      v1::ValidateToolCallRequest req;
      req.set_snapshot_id("sha256:0000");
      req.set_text(kAllowed);
      v1::ValidateToolCallResponse resp;
      ASSERT_FALSE(stub_->ValidateToolCall(&ctx, req, &resp).ok());
    }
  }

  const std::string text = Scrape();
  const auto after = ParseExposition(text);
  auto delta = [&](const std::string& series) {
    EXPECT_TRUE(after.count(series)) << series << " missing";
    return after.count(series) ? after.at(series) - before.at(series) : -1;
  };
  EXPECT_EQ(delta(Decisions("ValidateToolCall", "ALLOW")), kAllowedCalls + 1);
  EXPECT_EQ(delta(Decisions("ValidateToolCall", "REJECT")), kRejectedCalls + 2);
  EXPECT_EQ(delta(Decisions("ValidateToolCall", "STOP")), 1);
  EXPECT_EQ(delta(Decisions("ValidateToolCall", "NEEDS_APPROVAL")), 0);
  EXPECT_EQ(delta(Decisions("ValidateToolOutput", "INVALID")), 2);
  EXPECT_EQ(delta(Decisions("ValidateToolOutput", "VALID")), 1);
  EXPECT_EQ(delta(Decisions("ExtractVerdict", "PASS")), 1);
  EXPECT_EQ(delta(Decisions("ExtractVerdict", "CONTRACT_STOP")), 1);
  EXPECT_EQ(delta("toolgate_violations_total{code=\"unknown_tool\"}"),
            kRejectedCalls + 2);
  EXPECT_EQ(delta("toolgate_violations_total{code=\"truncated_json\"}"), 2);
  EXPECT_EQ(delta("toolgate_repairs_total{kind=\"trailing_comma\"}"), 1);
  EXPECT_EQ(delta("toolgate_breaker_opened_total"), 1);
  EXPECT_EQ(delta("toolgate_kill_switch_trips_total"), 1);
  EXPECT_EQ(delta("toolgate_rpc_errors_total{code=\"NOT_FOUND\",rpc="
                  "\"ValidateToolCall\"}"),
            2);
  const int validate_calls = kAllowedCalls + kRejectedCalls + 1 + 3 + 2;
  EXPECT_EQ(delta("toolgate_rpc_duration_seconds_count{rpc="
                  "\"ValidateToolCall\"}"),
            validate_calls);
  EXPECT_EQ(delta("toolgate_input_bytes_count{rpc=\"ValidateToolCall\"}"),
            validate_calls);
  EXPECT_EQ(delta("toolgate_rpc_duration_seconds_count{rpc=\"OpenRun\"}"), 2);
  EXPECT_EQ(delta("toolgate_open_runs"), 2);
  EXPECT_EQ(delta("toolgate_snapshots"), 0);
  // Request text never becomes a label value.
  EXPECT_EQ(text.find("secret_tool_xyz"), std::string::npos);
  EXPECT_EQ(text.find("secret-model-name-xyz"), std::string::npos);
  // A tool the snapshot declares is a label of the per-tool counter only.
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StrContains(line, "update_ticket")) {
      EXPECT_TRUE(absl::StartsWith(line, "toolgate_tool_calls_total{")) << line;
    }
  }
}

TEST_F(MetricsTest, PromtoolAcceptsTheExposition) {
  if (access("/usr/bin/promtool", X_OK) != 0) {
    GTEST_SKIP() << "promtool not installed (Debian package prometheus; "
                    "scripts/install-deps.sh installs it)";
  }
  Call(kAllowed);
  Call(kUnknownTool);
  const std::string text = Scrape();
  ASSERT_FALSE(text.empty());
  const std::string path = ::testing::TempDir() + "/exposition.txt";
  FILE* f = fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fwrite(text.data(), 1, text.size(), f);
  fclose(f);
  const std::string cmd = "/usr/bin/promtool check metrics < " + path + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof(buf), p)) out.append(buf, n);
  EXPECT_EQ(pclose(p), 0) << out;
  EXPECT_EQ(out, "") << "promtool lint findings";
}

}  // namespace
}  // namespace toolgate
