// The MCP path through its interface (McpGate over an McpDecider): the
// shared table (testing/mcp_cases.h) with a real Engine behind the
// decider, and what the decider is asked; a run's kill switch counting a
// batch's results; a decider that fails or cannot tell approvals.
#include "core/mesh/mcp_gate.h"

#include <string>
#include <vector>

#include "core/engine/engine.h"
#include "core/mesh/engine_decider.h"
#include "core/mesh/testing/mcp_cases.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace mesh {
namespace {

using testing::AnswerCase;
using testing::ErrorsOf;
using testing::RequestCase;
using testing::ToString;
namespace msg = testing::msg;

// The Engine, counting what the path asks of it (and, when told, unable
// to say which tools need approval, as a gateway may be).
class CountingDecider final : public McpDecider {
 public:
  explicit CountingDecider(Engine* engine) : engine_(engine) {}
  absl::StatusOr<ValidateCallResponse> ValidateToolCall(
      const ValidateCallRequest& request) override {
    ++calls;
    last_source = request.source;
    forward_as_sent = request.forward_as_sent;
    return engine_.ValidateToolCall(request);
  }
  absl::StatusOr<ValidateOutputResponse> ValidateToolOutput(
      const ValidateOutputRequest& request) override {
    ++outputs;
    return engine_.ValidateToolOutput(request);
  }
  absl::StatusOr<std::vector<bool>> RequiresApproval(
      absl::string_view snapshot_id,
      const std::vector<std::string>& tools) override {
    if (!knows_approvals) return absl::UnimplementedError("not known here");
    return engine_.RequiresApproval(snapshot_id, tools);
  }
  int calls = 0;
  int outputs = 0;
  bool knows_approvals = true;
  std::string last_source;
  bool forward_as_sent = false;

 private:
  EngineDecider engine_;
};

class McpGateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = engine_.CreateSnapshot(
        testing::kManifest, ManifestFormat::kToolgate, testing::kSnapshotName);
    ASSERT_TRUE(s.ok()) << s.status();
    snapshot_ = (*s)->id();
  }
  McpAsk Ask() const {
    McpAsk ask;
    ask.snapshot_id = snapshot_;
    ask.source = "test";
    return ask;
  }
  AnswerAsk Answering() const {
    AnswerAsk ask;
    ask.snapshot_id = snapshot_;
    ask.source = "test";
    return ask;
  }
  McpGate Gate() { return McpGate(&decider_, McpLimitsFor(engine_.options())); }

  Engine engine_;
  CountingDecider decider_{&engine_};
  std::string snapshot_;
};

TEST_F(McpGateTest, RequestTable) {
  for (const RequestCase& c : testing::RequestCases()) {
    SCOPED_TRACE(c.name);
    decider_.calls = 0;
    const McpGate gate = Gate();
    const McpDecision d = gate.Decide(Ask(), gate.Read(c.body));
    EXPECT_EQ(d.allowed, c.allowed);
    EXPECT_EQ(d.label, c.label);
    EXPECT_EQ(decider_.calls, c.decisions);
    if (c.allowed) continue;
    EXPECT_EQ(ToString(ErrorsOf(d.answer)), ToString(c.errors))
        << CanonicalJson(d.answer);
  }
}

TEST_F(McpGateTest, AnswerTable) {
  for (const AnswerCase& c : testing::AnswerCases()) {
    SCOPED_TRACE(c.name);
    decider_.outputs = 0;
    const McpGate gate = Gate();
    const AnswerPlan plan = gate.Plan(
        c.route == "-" ? Route::kUnnamed
                       : ReadRoute(std::optional<std::string>(c.route)),
        c.tool, gate.Read(c.request));
    if (c.refused_early) {
      ASSERT_EQ(plan.kind, AnswerPlan::Kind::kRefuse);
      EXPECT_EQ(ToString(ErrorsOf(plan.Refusal(plan.refusal))),
                ToString(c.errors));
      continue;
    }
    HttpAnswer answer;
    answer.status = c.status;
    answer.content_type = c.content_type;
    answer.content_encoding = c.content_encoding;
    answer.body = c.answer;
    const AnswerVerdict v = gate.Check(plan, Answering(), answer);
    EXPECT_EQ(v.valid, c.passed);
    EXPECT_EQ(v.label, c.label);
    EXPECT_EQ(decider_.outputs, c.outputs_checked);
    if (c.passed) continue;
    EXPECT_EQ(ToString(ErrorsOf(v.answer)), ToString(c.errors))
        << CanonicalJson(v.answer);
  }
}

TEST_F(McpGateTest, TheDeciderGetsTheCallAsSent) {
  const McpGate gate = Gate();
  McpAsk ask = Ask();
  ask.source = "mcp.stdio";
  ASSERT_TRUE(gate.Decide(ask, gate.Read(msg::Call("1", "get_customer",
                                                   msg::kCustomer)))
                  .allowed);
  EXPECT_EQ(decider_.last_source, "mcp.stdio");
  EXPECT_TRUE(decider_.forward_as_sent);
}

// A request ext_authz would deny (here: ids a client may read as one)
// never gets its answer passed, whatever the route header says: without
// one (Route::kUnnamed) such a batch once planned as "no call: pass".
TEST_F(McpGateTest, AnAnswerToARequestExtAuthzWouldDenyIsNeverPassed) {
  const McpGate gate = Gate();
  const std::string clash =
      msg::Batch({msg::Call("1", "get_customer", msg::kCustomer),
                  msg::Call(R"("1")", "get_customer", msg::kCustomer)});
  for (Route route : {Route::kMcp, Route::kUnnamed}) {
    const AnswerPlan plan = gate.Plan(route, "", gate.Read(clash));
    EXPECT_EQ(plan.kind, AnswerPlan::Kind::kRefuse);
  }
  EXPECT_FALSE(gate.Decide(McpAsk(), gate.Read(clash)).allowed);
}

TEST_F(McpGateTest, ABatchsResultsEachCountTowardTheKillSwitch) {
  RunLimits limits;
  limits.kill_switch_threshold = 2;
  limits.kill_switch_window = 2;
  auto run = engine_.OpenRun(snapshot_, "m", {}, limits);
  ASSERT_TRUE(run.ok()) << run.status();
  const McpGate gate = Gate();
  const std::string two =
      msg::Batch({msg::Call("1", "get_customer", msg::kCustomer),
                  msg::Call("2", "get_customer", msg::kCustomer)});
  const AnswerPlan plan = gate.Plan(Route::kMcp, "", gate.Read(two));
  AnswerAsk ask;
  ask.run_id = run->run->id();
  ask.run_token = run->token;
  const std::string body =
      msg::Batch({msg::Result("1", msg::kBad), msg::Result("2", msg::kBad)});
  HttpAnswer answer;
  answer.status = 200;
  answer.content_type = "application/json";
  answer.body = body;
  const AnswerVerdict v = gate.Check(plan, ask, answer);
  EXPECT_FALSE(v.valid);
  EXPECT_TRUE(v.read_only);  // Two INVALIDs in one answer: tripped.
  McpAsk call;
  call.run_id = ask.run_id;
  call.run_token = ask.run_token;
  const McpDecision write =
      gate.Decide(call, gate.Read(msg::Call("3", "send_note", msg::kTo)));
  EXPECT_FALSE(write.allowed);
  EXPECT_NE(CanonicalJson(write.answer).find("kill_switch_read_only"),
            std::string::npos)
      << CanonicalJson(write.answer);
}

TEST_F(McpGateTest, ADeciderThatCannotTellApprovalsTellsEveryCall) {
  decider_.knows_approvals = false;
  const McpGate gate = Gate();
  const McpDecision d = gate.Decide(
      Ask(),
      gate.Read(msg::Batch({msg::Call("1", "get_customer", msg::kCustomer),
                            msg::Call("2", "wire", R"({"amount":5})")})));
  EXPECT_EQ(d.label, "NEEDS_APPROVAL");
  EXPECT_EQ(ToString(ErrorsOf(d.answer)),
            "[1 -32040 needs_approval][2 -32040 needs_approval]");
}

TEST(McpGateFailing, AnEngineFailureIsADenyNeverAnAllow) {
  EngineOptions options;
  options.audit_required = true;
  Engine engine(options, [](const AuditRecord&) { return false; });
  auto s =
      engine.CreateSnapshot(testing::kManifest, ManifestFormat::kToolgate, "");
  ASSERT_TRUE(s.ok()) << s.status();
  EngineDecider decider(&engine);
  const McpGate gate(&decider, decider.limits());
  McpAsk ask;
  ask.snapshot_id = (*s)->id();
  const McpDecision d = gate.Decide(
      ask, gate.Read(msg::Batch(
               {msg::Call("1", "get_customer", msg::kCustomer), msg::kPing})));
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.label, "ERROR");
  EXPECT_EQ(ToString(ErrorsOf(d.answer)),
            "[1 -32044 unavailable][\"p\" -32042 batch_denied]");
  AnswerAsk answering;
  answering.snapshot_id = ask.snapshot_id;
  const AnswerPlan plan = gate.Plan(
      Route::kMcp, "",
      gate.Read(msg::Batch({msg::Call("1", "get_customer", msg::kCustomer),
                            msg::Call("2", "get_customer", msg::kCustomer)})));
  const std::string body =
      msg::Batch({msg::Result("1", msg::kGood), msg::Result("2", msg::kGood)});
  HttpAnswer answer{200, "application/json", body};
  const AnswerVerdict v = gate.Check(plan, answering, answer);
  EXPECT_FALSE(v.valid);
  EXPECT_EQ(v.label, "ERROR");
  EXPECT_EQ(ToString(ErrorsOf(v.answer)),
            "[1 -32044 unavailable][2 -32044 unavailable]");
}

TEST_F(McpGateTest, AHugeBatchIsRefusedBeforeItRuns) {
  const McpGate gate = Gate();
  std::vector<std::string> calls;
  for (size_t i = 0; i <= gate.limits().max_answer_calls; ++i) {
    calls.push_back(
        msg::Call(std::to_string(i + 1), "get_customer", msg::kCustomer));
  }
  const McpRequest request = gate.Read(msg::Batch(calls));
  EXPECT_FALSE(gate.Decide(Ask(), request).allowed);
  const AnswerPlan plan = gate.Plan(Route::kMcp, "", request);
  ASSERT_EQ(plan.kind, AnswerPlan::Kind::kRefuse);
  EXPECT_EQ(plan.refusal.data["reason"], "too_many_calls");
  calls.pop_back();  // At the limit: checked.
  EXPECT_EQ(gate.Plan(Route::kMcp, "", gate.Read(msg::Batch(calls))).kind,
            AnswerPlan::Kind::kBatch);
}

}  // namespace
}  // namespace mesh
}  // namespace toolgate
