// The audit trail as an operator relies on it: every decision is recorded
// before it is returned, with what replay needs when payloads are on, and
// under audit_required no decision leaves unrecorded.
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "core/engine/engine.h"
#include "core/pipeline/audit_payload.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kManifest[] = R"([{"name":"lookup","input_schema":{
  "type":"object","properties":{"id":{"type":"integer"}},
  "required":["id"],"additionalProperties":false}}])";
constexpr char kTextCall[] =
    "<tool_call>{\"name\":\"lookup\",\"arguments\":{\"id\":7,}}</tool_call>";

class AuditTest : public testing::Test {
 protected:
  // A sink that records, and fails while `fail_` is set.
  Engine MakeEngine(bool required, bool payloads) {
    EngineOptions options;
    options.audit_required = required;
    options.audit_payloads = payloads;
    return Engine(options, [this](const AuditRecord& r) {
      if (fail_) return false;
      records_.push_back(r);
      return true;
    });
  }

  static std::string Snapshot(Engine& engine) {
    auto s = engine.CreateSnapshot(kManifest, ManifestFormat::kAuto, "");
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? (*s)->id() : "";
  }

  static ValidateCallRequest Call(const std::string& snapshot) {
    ValidateCallRequest r;
    r.snapshot_id = snapshot;
    r.kind = OutputKind::kText;
    r.output = kTextCall;
    r.syntax_repair = true;
    return r;
  }

  static ValidateOutputRequest Output(const std::string& snapshot) {
    ValidateOutputRequest r;
    r.snapshot_id = snapshot;
    r.tool_name = "lookup";
    r.content_type = "application/json";
    r.http_status = 200;
    r.body = R"({"ok":true})";
    return r;
  }

  bool fail_ = false;
  std::vector<AuditRecord> records_;
};

// A front end other than the native RPC (the Envoy hook) names itself in
// the record; the native RPCs leave the source empty.
TEST_F(AuditTest, RecordNamesTheSourceThatAsked) {
  Engine engine = MakeEngine(false, false);
  const std::string id = Snapshot(engine);
  ValidateCallRequest call = Call(id);
  ASSERT_TRUE(engine.ValidateToolCall(call).ok());
  call.source = "envoy_ext_authz";
  ASSERT_TRUE(engine.ValidateToolCall(call).ok());
  ValidateOutputRequest output = Output(id);
  output.source = "envoy_ext_proc";
  ASSERT_TRUE(engine.ValidateToolOutput(output).ok());
  ASSERT_EQ(records_.size(), 3u);
  EXPECT_EQ(records_[0].source, "");
  EXPECT_EQ(records_[1].source, "envoy_ext_authz");
  EXPECT_EQ(records_[1].rpc, "ValidateToolCall");
  EXPECT_EQ(records_[2].source, "envoy_ext_proc");
  EXPECT_EQ(records_[2].rpc, "ValidateToolOutput");
}

TEST_F(AuditTest, RecordHoldsTheDecisionRunModelRepairsAndTiming) {
  Engine engine = MakeEngine(false, false);
  const std::string id = Snapshot(engine);
  auto run = engine.OpenRun(id, "model-x", {}, {});
  ASSERT_TRUE(run.ok()) << run.status();
  ValidateCallRequest call = Call(id);
  call.run_id = run->run->id();
  call.run_token = run->token;
  const absl::Time before = absl::Now();
  auto r = engine.ValidateToolCall(call);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->decision, Decision::kAllow);
  ASSERT_EQ(records_.size(), 1u);
  const AuditRecord& a = records_[0];
  EXPECT_EQ(a.audit_id, r->audit_id);
  EXPECT_EQ(a.decision, "ALLOW");
  EXPECT_EQ(a.model, "model-x");
  EXPECT_EQ(a.run_id, run->run->id());
  EXPECT_EQ(a.snapshot_id, id);
  EXPECT_THAT(a.tools, ElementsAre("lookup"));
  EXPECT_EQ(a.repairs, r->calls[0].repairs);
  EXPECT_FALSE(a.repairs.empty());
  EXPECT_GE(a.time, before);
  EXPECT_LE(a.time, absl::Now());
  EXPECT_GE(a.latency_us, 0);
  // Model output is user data: not recorded unless asked for.
  EXPECT_TRUE(a.payload.is_null());
}

TEST_F(AuditTest, PayloadDecidesTheSameCallAgain) {
  Engine engine = MakeEngine(false, true);
  const std::string id = Snapshot(engine);
  ASSERT_TRUE(engine.ValidateToolCall(Call(id)).ok());
  ASSERT_TRUE(engine.ValidateToolOutput(Output(id)).ok());
  VerdictRequest verdict;
  verdict.envelope = "```json\n{\"verdict\":\"pass\",\"reason\":\"ok\"}\n```";
  ASSERT_TRUE(engine.ExtractVerdict(verdict).ok());
  ASSERT_EQ(records_.size(), 3u);

  auto call = CallFromPayload(records_[0].payload);
  ASSERT_TRUE(call.ok()) << call.status();
  call->snapshot_id = id;
  auto again = engine.ValidateToolCall(*call);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(DecisionName(again->decision), records_[0].decision);

  std::string bytes;
  auto output = OutputFromPayload(records_[1].payload, &bytes);
  ASSERT_TRUE(output.ok()) << output.status();
  EXPECT_EQ(output->body, R"({"ok":true})");
  auto v = VerdictFromPayload(records_[2].payload);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->envelope, verdict.envelope);
  EXPECT_EQ(records_[2].decision, "PASS");
}

TEST_F(AuditTest, RequiredAuditWithholdsEveryDecisionItCannotRecord) {
  Engine engine = MakeEngine(true, false);
  const std::string id = Snapshot(engine);
  fail_ = true;
  auto call = engine.ValidateToolCall(Call(id));
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(call.status().message(), HasSubstr("--audit_required"));
  auto output = engine.ValidateToolOutput(Output(id));
  EXPECT_EQ(output.status().code(), absl::StatusCode::kUnavailable);
  VerdictRequest verdict;
  verdict.envelope = "```json\n{\"verdict\":\"pass\",\"reason\":\"ok\"}\n```";
  EXPECT_EQ(engine.ExtractVerdict(verdict).status().code(),
            absl::StatusCode::kUnavailable);
  // Once the trail takes records again, so do decisions.
  fail_ = false;
  EXPECT_TRUE(engine.ValidateToolCall(Call(id)).ok());
}

TEST_F(AuditTest, WithoutRequiredAFailedRecordDoesNotStopTheDecision) {
  Engine engine = MakeEngine(false, false);
  const std::string id = Snapshot(engine);
  fail_ = true;
  auto call = engine.ValidateToolCall(Call(id));
  ASSERT_TRUE(call.ok()) << call.status();
  EXPECT_EQ(call->decision, Decision::kAllow);
}

}  // namespace
}  // namespace toolgate

namespace toolgate {
namespace {

TEST(ApprovalAudit, RequestUseAndDecisionAreRecorded) {
  std::vector<AuditRecord> records;
  Engine engine(EngineOptions(), [&](const AuditRecord& r) {
    records.push_back(r);
    return true;
  });
  auto snapshot = engine.CreateSnapshot(
      R"({"toolgate":"v1","tools":[{"name":"wire","side_effect":"destructive",
        "input_schema":{"type":"object"},"policy":{"requires_approval":true}}]})",
      ManifestFormat::kAuto, "");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  auto run = engine.OpenRun((*snapshot)->id(), "model-x", {}, {});
  ASSERT_TRUE(run.ok()) << run.status();
  ValidateCallRequest call;
  call.run_id = run->run->id();
  call.run_token = run->token;
  call.kind = OutputKind::kNative;
  call.output = R"({"name":"wire","arguments":{"amount":5}})";
  auto asked = engine.ValidateToolCall(call);
  ASSERT_TRUE(asked.ok()) << asked.status();
  ASSERT_EQ(asked->decision, Decision::kNeedsApproval);
  auto decided = engine.DecideApproval(asked->approval_id, true,
                                       "alice@example.com", "ticket 42");
  ASSERT_TRUE(decided.ok()) << decided.status();
  call.approval_id = asked->approval_id;
  auto used = engine.ValidateToolCall(call);
  ASSERT_TRUE(used.ok()) << used.status();
  EXPECT_EQ(used->decision, Decision::kAllow);

  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].decision, "NEEDS_APPROVAL");
  EXPECT_EQ(records[0].approval_id, asked->approval_id);
  EXPECT_EQ(records[1].rpc, "DecideApproval");
  EXPECT_EQ(records[1].decision, "APPROVED");
  EXPECT_EQ(records[1].approver, "alice@example.com");
  EXPECT_EQ(records[1].reason, "ticket 42");
  EXPECT_EQ(records[1].run_id, run->run->id());
  EXPECT_EQ(records[1].model, "model-x");
  EXPECT_THAT(records[1].tools, ElementsAre("wire"));
  EXPECT_EQ(records[2].decision, "ALLOW");
  EXPECT_EQ(records[2].approval_id, asked->approval_id);
}

}  // namespace
}  // namespace toolgate

namespace toolgate {
namespace {

// A decision withheld because its record could not be written spends
// neither the approval it presented nor the run's call budget.
TEST(ApprovalAudit, WithheldDecisionGivesBackApprovalAndBudget) {
  bool fail = false;
  EngineOptions options;
  options.audit_required = true;
  Engine engine(options, [&](const AuditRecord&) { return !fail; });
  auto snapshot = engine.CreateSnapshot(
      R"({"toolgate":"v1","tools":[{"name":"wire","side_effect":"destructive",
        "input_schema":{"type":"object"},
        "policy":{"requires_approval":true,"max_calls_per_run":1}}]})",
      ManifestFormat::kAuto, "");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  auto run = engine.OpenRun((*snapshot)->id(), "m", {}, {});
  ASSERT_TRUE(run.ok()) << run.status();
  ValidateCallRequest call;
  call.run_id = run->run->id();
  call.run_token = run->token;
  call.kind = OutputKind::kNative;
  call.output = R"({"name":"wire","arguments":{}})";
  auto asked = engine.ValidateToolCall(call);
  ASSERT_TRUE(asked.ok()) << asked.status();
  ASSERT_TRUE(
      engine.DecideApproval(asked->approval_id, true, "alice", "").ok());
  call.approval_id = asked->approval_id;

  fail = true;
  EXPECT_EQ(engine.ValidateToolCall(call).status().code(),
            absl::StatusCode::kUnavailable);
  fail = false;
  auto used = engine.ValidateToolCall(call);
  ASSERT_TRUE(used.ok()) << used.status();
  EXPECT_EQ(used->decision, Decision::kAllow);
  EXPECT_EQ(run->run->calls_used("wire"), 1);
}

}  // namespace
}  // namespace toolgate
