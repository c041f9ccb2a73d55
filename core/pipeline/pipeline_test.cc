// The stage runner and what the stage list promises: a stage that fails
// ends the call, an early decision skips the judging stages but not the
// audit, and a policy stage plugged in before "decide" can only refuse.
#include <string>
#include <vector>

#include "core/pipeline/audit_call.h"
#include "core/pipeline/call_context.h"
#include "core/pipeline/gate_stages.h"
#include "core/pipeline/read_calls.h"
#include "core/pipeline/resolve.h"
#include "core/state/memory_run_state.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace pipeline {
namespace {

using ::testing::ElementsAre;

constexpr char kManifest[] = R"({"tools":[{"name":"search",
  "inputSchema":{"type":"object","properties":{"q":{"type":"string"}},
  "required":["q"],"additionalProperties":false}}]})";

class PipelineTest : public testing::Test {
 protected:
  void SetUp() override {
    auto s = snapshots_.Create(kManifest, ManifestFormat::kMcp, "tools");
    ASSERT_TRUE(s.ok()) << s.status();
    request_.snapshot_id = (*s)->id();
    request_.kind = OutputKind::kText;
  }

  EngineOptions options_;
  SnapshotStore snapshots_{SnapshotStoreOptions{options_.limits, 16}};
  RunRegistry runs_;
  std::vector<AuditRecord> audited_;
  AuditTrail audit_{[this](const AuditRecord& r) {
    audited_.push_back(r);
    return true;
  }};
  ApprovalStore approvals_;
  state::MemoryRunStateStore run_state_{approvals_};
  Services services_{options_, snapshots_, runs_, approvals_, run_state_,
                     audit_};
  ValidateCallRequest request_;
};

// Records which test stages ran.
std::vector<std::string>* ran = nullptr;

absl::Status First(CallContext&) {
  ran->push_back("first");
  return absl::OkStatus();
}
absl::Status DecideEarly(CallContext& call) {
  ran->push_back("decide_early");
  call.response.decision = Decision::kStop;
  call.decided_early = true;
  return absl::OkStatus();
}
absl::Status Fail(CallContext&) {
  ran->push_back("fail");
  return absl::NotFoundError("gone");
}
absl::Status Judge(CallContext&) {
  ran->push_back("judge");
  return absl::OkStatus();
}
absl::Status Record(CallContext&) {
  ran->push_back("record");
  return absl::OkStatus();
}

TEST_F(PipelineTest, AFailingStageEndsTheCallAndNothingAfterItRuns) {
  std::vector<std::string> log;
  ran = &log;
  constexpr Stage kStages[] = {{"first", First},
                               {"fail", Fail},
                               {"judge", Judge},
                               {"record", Record, Stage::When::kAlways}};
  CallContext call(services_, request_);
  EXPECT_EQ(RunStages(kStages, call).code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(log, ElementsAre("first", "fail"));
}

TEST_F(PipelineTest, AnEarlyDecisionSkipsJudgingButNotTheAlwaysStages) {
  std::vector<std::string> log;
  ran = &log;
  constexpr Stage kStages[] = {{"decide_early", DecideEarly},
                               {"judge", Judge},
                               {"record", Record, Stage::When::kAlways}};
  CallContext call(services_, request_);
  ASSERT_TRUE(RunStages(kStages, call).ok());
  EXPECT_THAT(log, ElementsAre("decide_early", "record"));
  EXPECT_EQ(call.response.decision, Decision::kStop);
}

// A policy stage of the kind issue 12 adds: it vetoes every call.
absl::Status VetoAll(CallContext& call) {
  for (size_t i = 0; i < call.gate.calls.size(); ++i) {
    Violation v;
    v.code = "test_policy";
    v.call_index = static_cast<int>(i);
    call.gate.vetoes.push_back(v);
  }
  call.gate.veto_reason = "test_policy";
  return absl::OkStatus();
}

constexpr Stage kWithPolicy[] = {
    {"resolve", Resolve},
    {"extract candidates", ExtractCandidates},
    {"repair + strict parse", ParseCalls},
    {"resolve tool", ResolveTools},
    {"schema", CheckArguments},
    {"policy (tool)", RequireApproval},
    {"policy (test)", VetoAll},
    {"decide", Decide},
    {"audit", AuditCall, Stage::When::kAlways},
};

TEST_F(PipelineTest, APluggedInPolicyRefusesAValidCall) {
  request_.output = R"(<tool_call>{"name":"search","arguments":{"q":"x"}})"
                    R"(</tool_call>)";
  CallContext call(services_, request_);
  ASSERT_TRUE(RunStages(kWithPolicy, call).ok());
  EXPECT_EQ(call.response.decision, Decision::kReject);
  EXPECT_EQ(call.response.stop_reason, "test_policy");
  ASSERT_EQ(call.response.violations.size(), 1u);
  EXPECT_EQ(call.response.violations[0].code, "test_policy");
  ASSERT_EQ(audited_.size(), 1u);
  EXPECT_EQ(audited_[0].decision, "REJECT");
}

TEST_F(PipelineTest, APluggedInPolicyNeverTurnsARejectIntoAnAllow) {
  request_.output = R"(<tool_call>{"name":"search","arguments":{"q":1}})"
                    R"(</tool_call>)";
  CallContext call(services_, request_);
  ASSERT_TRUE(RunStages(kWithPolicy, call).ok());
  EXPECT_EQ(call.response.decision, Decision::kReject);
  ASSERT_EQ(call.response.violations.size(), 2u);
  // The call's own violation first, then the veto.
  EXPECT_EQ(call.response.violations[0].code, "invalid_arguments");
  EXPECT_EQ(call.response.violations[1].code, "test_policy");
}

TEST_F(PipelineTest, TextWithoutACallIsAReadErrorNotAnEmptyAllow) {
  request_.output = "I would search for x.";
  CallContext call(services_, request_);
  ASSERT_TRUE(RunStages(kWithPolicy, call).ok());
  EXPECT_EQ(call.response.decision, Decision::kReject);
  ASSERT_EQ(call.response.violations.size(), 1u);
  EXPECT_EQ(call.response.violations[0].code, "no_tool_call");
}

}  // namespace
}  // namespace pipeline
}  // namespace toolgate
