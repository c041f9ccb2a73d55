// A run's state stays exactly-once under concurrency: however many calls
// of one run race, call budgets, approvals, the misformat breaker and the
// kill switch each count every event once. Only what a caller sees is
// asserted (decisions, stop_reason, violation codes, attempt counts), so
// that these hold whatever the state's internal layout.
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/notification.h"
#include "core/engine/engine.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

using ::testing::AnyOf;
using ::testing::ElementsAre;

// Every destructive tool shares the class budget of 5.
constexpr char kManifest[] = R"({"toolgate":"v1",
  "settings":{"max_calls_per_run_by_class":{"destructive":5}},
  "tools":[
    {"name":"refund","side_effect":"write","input_schema":{"type":"object"},
     "policy":{"max_calls_per_run":3}},
    {"name":"purge","side_effect":"destructive",
     "input_schema":{"type":"object"}},
    {"name":"wipe","side_effect":"destructive",
     "input_schema":{"type":"object"}},
    {"name":"wire","side_effect":"write","input_schema":{"type":"object"},
     "policy":{"requires_approval":true}},
    {"name":"payout","side_effect":"write","input_schema":{"type":"object"},
     "policy":{"requires_approval":true,"max_calls_per_run":1}},
    {"name":"note","side_effect":"write","input_schema":{"type":"object"}},
    {"name":"lookup","side_effect":"read","input_schema":{"type":"object",
     "properties":{"id":{"type":"integer"}},"required":["id"],
     "additionalProperties":false}}]})";

// Runs fn(0) ... fn(n - 1) on n threads released together, so that they
// overlap as much as the machine allows; returns once all are done.
void Together(int n, const std::function<void(int)>& fn) {
  absl::BlockingCounter ready(n);
  absl::Notification go;
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      ready.DecrementCount();
      go.WaitForNotification();
      fn(i);
    });
  }
  ready.Wait();
  go.Notify();
  for (std::thread& t : threads) t.join();
}

int Count(const std::vector<ValidateCallResponse>& responses,
          Decision decision) {
  int n = 0;
  for (const ValidateCallResponse& r : responses) n += r.decision == decision;
  return n;
}

// A refusal by policy: REJECT naming `code` as stop_reason and violation.
void ExpectRefused(const ValidateCallResponse& r, const std::string& code) {
  EXPECT_EQ(r.decision, Decision::kReject);
  EXPECT_EQ(r.stop_reason, code);
  ASSERT_FALSE(r.violations.empty());
  EXPECT_EQ(r.violations.back().code, code);
}

class RunConcurrencyTest : public testing::Test {
 protected:
  void SetUp() override {
    auto s = engine_.CreateSnapshot(kManifest, ManifestFormat::kAuto, "");
    ASSERT_TRUE(s.ok()) << s.status();
    snapshot_ = (*s)->id();
  }

  OpenedRun Open(RunLimits limits = {}) {
    auto run = engine_.OpenRun(snapshot_, "m", {}, limits);
    EXPECT_TRUE(run.ok()) << run.status();
    return run.ok() ? *run : OpenedRun{};
  }

  ValidateCallResponse Call(const OpenedRun& run, const std::string& tool,
                            const Json& args,
                            const std::string& approval_id = "") {
    ValidateCallRequest r;
    r.run_id = run.run->id();
    r.run_token = run.token;
    r.kind = OutputKind::kNative;
    const std::string output = Json{{"name", tool}, {"arguments", args}}.dump();
    r.output = output;
    r.approval_id = approval_id;
    auto out = engine_.ValidateToolCall(r);
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? *out : ValidateCallResponse{};
  }

  // Asks for `tool` with `args` and approves the request; its id.
  std::string Approved(const OpenedRun& run, const std::string& tool,
                       const Json& args) {
    ValidateCallResponse asked = Call(run, tool, args);
    EXPECT_EQ(asked.decision, Decision::kNeedsApproval);
    EXPECT_FALSE(asked.approval_id.empty());
    EXPECT_TRUE(
        engine_.DecideApproval(asked.approval_id, true, "alice", "ok").ok());
    return asked.approval_id;
  }

  // A JSON tool answering with an HTML error page.
  ValidateOutputResponse InvalidOutput(const OpenedRun& run) {
    ValidateOutputRequest r;
    r.run_id = run.run->id();
    r.run_token = run.token;
    r.tool_name = "lookup";
    r.content_type = "application/json";
    r.http_status = output::kNoHttpStatus;
    r.body = "<!doctype html><p>down</p>";
    auto out = engine_.ValidateToolOutput(r);
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? *out : ValidateOutputResponse{};
  }

  std::vector<std::string> Ids(const OpenedRun& run, ApprovalState state) {
    std::vector<std::string> ids;
    auto listed = engine_.ListApprovals(run.run->id(), state);
    EXPECT_TRUE(listed.ok()) << listed.status();
    if (!listed.ok()) return ids;
    for (const Approval& a : *listed) {
      ids.push_back(a.approval_id);
    }
    return ids;
  }

  Engine engine_;
  std::string snapshot_;
};

// A budget caps what runs, not what is asked: however many calls race,
// exactly the budget is ALLOWed, per tool and per side-effect class, and
// every other call is refused call_budget_exhausted.
struct BudgetCase {
  std::string name;
  std::vector<std::string> tools;  // Thread i calls tools[i % size].
  int threads;
  int budget;
};

class BudgetRace : public RunConcurrencyTest,
                   public testing::WithParamInterface<BudgetCase> {};

TEST_P(BudgetRace, AllowsExactlyTheBudget) {
  const BudgetCase& c = GetParam();
  const OpenedRun run = Open();
  std::vector<ValidateCallResponse> out(c.threads);
  Together(c.threads, [&](int i) {
    out[i] = Call(run, c.tools[i % c.tools.size()], {{"n", i}});
  });
  EXPECT_EQ(Count(out, Decision::kAllow), c.budget);
  EXPECT_EQ(Count(out, Decision::kReject), c.threads - c.budget);
  for (const ValidateCallResponse& r : out) {
    if (r.decision != Decision::kAllow) {
      ExpectRefused(r, "call_budget_exhausted");
    }
  }
  // Nothing was given back that should not have been: the next is refused.
  ExpectRefused(Call(run, c.tools[0], {{"n", -1}}), "call_budget_exhausted");
}

INSTANTIATE_TEST_SUITE_P(
    Budgets, BudgetRace,
    testing::Values(BudgetCase{"ToolBudget", {"refund"}, 50, 3},
                    BudgetCase{"ClassBudget", {"purge", "wipe"}, 40, 5}),
    [](const testing::TestParamInfo<BudgetCase>& info) {
      return info.param.name;
    });

// An approval lets its call run once: of many concurrent presentations of
// one approved call, exactly one is ALLOWed, the rest are approval_used.
TEST_F(RunConcurrencyTest, ApprovalIsUsedExactlyOnce) {
  constexpr int kThreads = 32;
  const OpenedRun run = Open();
  const Json args = {{"amount", 5}};
  const std::string id = Approved(run, "wire", args);
  std::vector<ValidateCallResponse> out(kThreads);
  Together(kThreads, [&](int i) { out[i] = Call(run, "wire", args, id); });
  EXPECT_EQ(Count(out, Decision::kAllow), 1);
  for (const ValidateCallResponse& r : out) {
    if (r.decision == Decision::kAllow) {
      EXPECT_EQ(r.approval_id, id);
    } else {
      ExpectRefused(r, "approval_used");
    }
  }
  EXPECT_THAT(Ids(run, ApprovalState::kUsed), ElementsAre(id));
}

// A model retrying a call must not flood the approvers: concurrent asks
// for one call of a run all get the same single PENDING approval.
TEST_F(RunConcurrencyTest, ConcurrentAsksShareOneApproval) {
  constexpr int kThreads = 32;
  const OpenedRun run = Open();
  std::vector<ValidateCallResponse> out(kThreads);
  Together(kThreads, [&](int i) {
    out[i] = Call(run, "wire", {{"amount", 7}});
  });
  EXPECT_EQ(Count(out, Decision::kNeedsApproval), kThreads);
  EXPECT_THAT(Ids(run, ApprovalState::kPending),
              ElementsAre(out[0].approval_id));
  for (const ValidateCallResponse& r : out) {
    EXPECT_EQ(r.approval_id, out[0].approval_id);
  }
}

// An approval whose call the budget refuses is not spent: the human's
// permission stays usable (APPROVED, not USED) should the budget allow.
TEST_F(RunConcurrencyTest, ApprovalRefusedByTheBudgetIsGivenBack) {
  constexpr int kThreads = 16;
  const OpenedRun run = Open();
  const std::vector<std::string> ids = {Approved(run, "payout", {{"n", 0}}),
                                        Approved(run, "payout", {{"n", 1}})};
  std::vector<ValidateCallResponse> out(kThreads);
  Together(kThreads, [&](int i) {
    out[i] = Call(run, "payout", {{"n", i % 2}}, ids[i % 2]);
  });
  ASSERT_EQ(Count(out, Decision::kAllow), 1);
  int winner = 0;
  for (int i = 0; i < kThreads; ++i) {
    if (out[i].decision == Decision::kAllow) winner = i % 2;
  }
  for (int i = 0; i < kThreads; ++i) {
    if (out[i].decision == Decision::kAllow) {
      EXPECT_EQ(out[i].approval_id, ids[winner]);
      continue;
    }
    // The winner's approval is used; the other one is refused by the
    // budget, never approval_used (the run's commit consumes an approval
    // and spends the budget in one step, so no racing presentation sees it
    // USED in between).
    ExpectRefused(out[i], i % 2 == winner ? "approval_used"
                                          : "call_budget_exhausted");
  }
  const std::string& loser = ids[1 - winner];
  EXPECT_THAT(Ids(run, ApprovalState::kUsed), ElementsAre(ids[winner]));
  EXPECT_THAT(Ids(run, ApprovalState::kApproved), ElementsAre(loser));
  // Presented alone, the other is refused by the budget and kept.
  ValidateCallResponse again = Call(run, "payout", {{"n", 1 - winner}}, loser);
  ExpectRefused(again, "call_budget_exhausted");
  EXPECT_TRUE(again.approval_id.empty());
  EXPECT_THAT(Ids(run, ApprovalState::kApproved), ElementsAre(loser));
}

// The breaker counts each misformatted call once: the attempts a run's
// REJECTs report count up 1, 2, ... K, each exactly once, nothing is
// ALLOWed, and once open the breaker STOPs at attempt K. (Before the
// run's commit checked the breaker in the same step that counts, calls
// that read it closed before the K-th reject was counted were REJECTed
// with attempt K too, in about a quarter of rounds.)
TEST_F(RunConcurrencyTest, BreakerCountsEachRejectOnce) {
  constexpr int kThreads = 40;
  constexpr int kLimit = 5;
  const OpenedRun run = Open(RunLimits{kLimit});
  std::vector<ValidateCallResponse> out(kThreads);
  Together(kThreads, [&](int i) {
    out[i] = Call(run, "lookup", {{"id", "x"}});
  });
  std::vector<int> rejects_at(kLimit + 1, 0);  // By attempt.
  for (const ValidateCallResponse& r : out) {
    ASSERT_THAT(r.decision, AnyOf(Decision::kReject, Decision::kStop));
    if (r.decision == Decision::kStop) {
      EXPECT_EQ(r.stop_reason, "misformat_circuit_open");
      EXPECT_EQ(r.attempt, kLimit);
      continue;
    }
    ASSERT_GE(r.attempt, 1);
    ASSERT_LE(r.attempt, kLimit);
    EXPECT_EQ(r.attempts_left, kLimit - r.attempt);
    ++rejects_at[r.attempt];
  }
  for (int attempt = 1; attempt <= kLimit; ++attempt) {
    EXPECT_EQ(rejects_at[attempt], 1) << "attempt " << attempt;
  }
  const ValidateCallResponse after = Call(run, "lookup", {{"id", "x"}});
  EXPECT_EQ(after.decision, Decision::kStop);
  EXPECT_EQ(after.stop_reason, "misformat_circuit_open");
  EXPECT_EQ(after.attempt, kLimit);
}

// A valid call racing the reject that opens the breaker is either before
// it (ALLOW; the reject is then attempt 1 again) or after it (STOP): never
// ALLOWed with attempts left once that reject reported the breaker open.
// (Before the run's commit, it was in most rounds.)
TEST_F(RunConcurrencyTest, NoAllowAfterTheRejectThatOpensTheBreaker) {
  constexpr int kLimit = 3;
  constexpr int kThreads = 8;
  for (int round = 0; round < 20; ++round) {
    const OpenedRun run = Open(RunLimits{kLimit});
    for (int i = 1; i < kLimit; ++i) Call(run, "lookup", {{"id", "x"}});
    std::vector<ValidateCallResponse> out(kThreads);
    Together(kThreads, [&](int i) {
      out[i] = Call(run, "lookup", i == 0 ? Json{{"id", "x"}} : Json{{"id", 1}});
    });
    if (out[0].decision == Decision::kReject && out[0].attempt == kLimit) {
      EXPECT_EQ(Count(out, Decision::kAllow), 0) << "round " << round;
    }
    EXPECT_TRUE(engine_.CloseRun(run.run->id(), run.token).ok());
  }
}

// Invalid tool outputs racing writes still trip the kill switch exactly
// when the threshold is reached; writes are refused only by it, and once
// it is on the run is read-only (reads still run) until ResetRun.
TEST_F(RunConcurrencyTest, KillSwitchTripsOnceUnderRacingWrites) {
  constexpr int kEach = 20;
  const OpenedRun run = Open(RunLimits{0, 2, 2});
  std::vector<ValidateOutputResponse> outputs(kEach);
  std::vector<ValidateCallResponse> writes(kEach);
  Together(2 * kEach, [&](int i) {
    if (i % 2 == 1) {
      writes[i / 2] = Call(run, "note", {{"n", i}});
    } else {
      outputs[i / 2] = InvalidOutput(run);
    }
  });
  int writable = 0;  // Outputs after which the run still took writes.
  for (const ValidateOutputResponse& o : outputs) {
    EXPECT_EQ(o.result.verdict, output::OutputVerdict::kInvalid);
    writable += !o.read_only;
  }
  EXPECT_EQ(writable, 1);  // Only the first of the threshold of 2.
  for (const ValidateCallResponse& w : writes) {
    if (w.decision != Decision::kAllow) {
      ExpectRefused(w, "kill_switch_read_only");
    }
  }
  ExpectRefused(Call(run, "note", {{"n", -1}}), "kill_switch_read_only");
  EXPECT_EQ(Call(run, "lookup", {{"id", 1}}).decision, Decision::kAllow);
  ASSERT_TRUE(engine_.ResetRun(run.run->id(), run.token).ok());
  EXPECT_EQ(Call(run, "note", {{"n", -2}}).decision, Decision::kAllow);
}

}  // namespace
}  // namespace toolgate
