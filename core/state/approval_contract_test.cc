// The run state contract (run_state_contract.h) for approvals: asked once,
// used once, decided once, awaited across ledgers, expired, and the caps
// per run, per tenant, in all and in bytes, on every store.
#include <map>
#include <string>
#include <thread>

#include "absl/time/clock.h"
#include "core/state/run_state_contract.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace state {
namespace contract {
namespace {

TEST_P(RunStateContract, ApprovalRequestedOnceUsedOnce) {
  const CallOutcome asked = Commit(WithApproval(CallPlan::Approval::kRequest));
  EXPECT_EQ(asked.decision, Decision::kNeedsApproval);
  ASSERT_FALSE(asked.approval_id.empty());
  EXPECT_TRUE(asked.loop_recorded);  // Resets the count, as an ALLOW.
  // The identical pending call: the same approval, not a second one.
  EXPECT_EQ(Commit(WithApproval(CallPlan::Approval::kRequest)).approval_id,
            asked.approval_id);
  const CallPlan early =
      WithApproval(CallPlan::Approval::kConsume, asked.approval_id);
  EXPECT_EQ(Commit(early).refused_approval.code, "approval_pending");
  Approve(asked.approval_id);
  const CallOutcome used = Commit(early);
  EXPECT_EQ(used.decision, Decision::kAllow);
  EXPECT_TRUE(used.approval_consumed);
  const CallOutcome again = Commit(early);
  EXPECT_EQ(again.decision, Decision::kReject);
  EXPECT_EQ(again.refused_approval.code, "approval_used");
  EXPECT_FALSE(again.loop_recorded);
  CallPlan other = early;
  other.arguments_json = R"({"path":"b"})";
  EXPECT_EQ(Commit(other).refused_approval.code, "approval_mismatch");
}

TEST_P(RunStateContract, BudgetRefusalGivesTheApprovalBack) {
  const std::string first = Approve(
      Commit(Charged(1, WithApproval(CallPlan::Approval::kRequest)))
          .approval_id);
  EXPECT_EQ(Commit(Charged(1)).decision, Decision::kAllow);  // Uses it up.
  const CallOutcome over =
      Commit(Charged(1, WithApproval(CallPlan::Approval::kConsume, first)));
  EXPECT_EQ(over.decision, Decision::kReject);
  EXPECT_EQ(over.budget_refused, 0);
  EXPECT_FALSE(over.approval_consumed);
  EXPECT_TRUE(over.approval_id.empty());
  EXPECT_EQ(Listed(ApprovalState::kApproved), 1u);
}

TEST_P(RunStateContract, ParallelApprovalsAreRefusedAndCount) {
  const CallOutcome out = Commit(WithApproval(CallPlan::Approval::kParallel));
  EXPECT_EQ(out.decision, Decision::kReject);
  EXPECT_TRUE(out.loop_recorded);
  EXPECT_EQ(out.loop.attempt, 1);
  EXPECT_EQ(Listed(ApprovalState::kUnspecified), 0u);
}

TEST_P(RunStateContract, ApprovalCapIsAnErrorAndChangesNothing) {
  ApprovalStoreOptions options;
  options.max_pending_per_run = 1;
  Stores stores = GetParam().make(options);
  run_ = Open(RunLimits{3, 2, 2}, stores);
  RunStateStore* store = stores.state.get();
  ASSERT_TRUE(store->CommitCall(*run_, Misformatted()).ok());  // attempt 1
  ASSERT_TRUE(
      store->CommitCall(*run_, WithApproval(CallPlan::Approval::kRequest))
          .ok());
  ASSERT_TRUE(store->CommitCall(*run_, Misformatted()).ok());  // attempt 1
  CallPlan second = WithApproval(CallPlan::Approval::kRequest);
  second.arguments_json = R"({"path":"other"})";
  EXPECT_EQ(store->CommitCall(*run_, second).status().code(),
            absl::StatusCode::kResourceExhausted);
  // The failed request reset nothing: the next reject is attempt 2.
  EXPECT_EQ(store->CommitCall(*run_, Misformatted())->loop.attempt, 2);
}

TEST_P(RunStateContract, TenantCapCountsEveryRunOfTheTenant) {
  ApprovalStoreOptions options;
  options.max_pending_per_tenant = 1;
  Stores stores = GetParam().make(options);
  const std::map<std::string, std::string> acme = {{"tenant", "acme"}};
  auto a = Open(RunLimits{3, 2, 2}, stores, acme);
  auto b = Open(RunLimits{3, 2, 2}, stores, acme);
  auto other = Open(RunLimits{3, 2, 2}, stores, {{"tenant", "globex"}});
  const CallPlan ask = WithApproval(CallPlan::Approval::kRequest);
  ASSERT_TRUE(stores.state->CommitCall(*a, ask).ok());
  absl::StatusOr<CallOutcome> refused = stores.state->CommitCall(*b, ask);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(refused.status().message()),
              testing::HasSubstr("--max_pending_approvals_per_tenant=1"));
  EXPECT_TRUE(stores.state->CommitCall(*other, ask).ok());
}

// --max_approval_bytes: counted over every run, given back when a
// pending approval expires.
TEST_P(RunStateContract, ByteCapCountsEveryApprovalHeld) {
  ApprovalStoreOptions options;
  options.ttl = absl::Milliseconds(300);
  CallPlan ask = WithApproval(CallPlan::Approval::kRequest);
  Approval sized;  // What each request below holds.
  sized.run_id = std::string(36, 'r');
  sized.tool = ask.tool;
  sized.arguments_json = ask.arguments_json;
  sized.model = "m";
  options.max_bytes = 2 * ApprovalBytes(sized) - 1;
  Stores stores = GetParam().make(options);
  auto a = Open(RunLimits{3, 2, 2}, stores);
  auto b = Open(RunLimits{3, 2, 2}, stores);
  ASSERT_EQ(a->id().size(), 36u);
  ASSERT_TRUE(stores.state->CommitCall(*a, ask).ok());
  absl::StatusOr<CallOutcome> refused = stores.state->CommitCall(*b, ask);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(refused.status().message()),
              testing::HasSubstr("--max_approval_bytes="));
  absl::SleepFor(absl::Milliseconds(400));  // a's approval expires
  absl::StatusOr<CallOutcome> later = stores.state->CommitCall(*b, ask);
  ASSERT_TRUE(later.ok()) << later.status();
  EXPECT_FALSE(later->approval_id.empty());
}

// A denied approval gives its bytes back keep_after_expiry after the
// decision, not after its expiry (when its record goes).
TEST_P(RunStateContract, DeniedApprovalGivesItsBytesBackAfterKeep) {
  ApprovalStoreOptions options;
  options.ttl = absl::Seconds(30);
  options.keep_after_expiry = absl::Milliseconds(200);
  CallPlan ask = WithApproval(CallPlan::Approval::kRequest);
  Approval sized;  // What each request below holds; one fits.
  sized.run_id = std::string(36, 'r');
  sized.tool = ask.tool;
  sized.arguments_json = ask.arguments_json;
  sized.model = "m";
  options.max_bytes = ApprovalBytes(sized);
  Stores stores = GetParam().make(options);
  auto run = Open(RunLimits{3, 2, 2}, stores);
  ASSERT_EQ(run->id().size(), 36u);
  absl::StatusOr<CallOutcome> asked = stores.state->CommitCall(*run, ask);
  ASSERT_TRUE(asked.ok()) << asked.status();
  ASSERT_TRUE(
      stores.ledger->Decide(asked->approval_id, false, "alice", "no").ok());
  ask.arguments_json = R"({"path":"b"})";  // As many bytes.
  EXPECT_EQ(stores.state->CommitCall(*run, ask).status().code(),
            absl::StatusCode::kResourceExhausted);
  absl::SleepFor(absl::Milliseconds(1500));  // The memory store sweeps each s.
  absl::StatusOr<CallOutcome> later = stores.state->CommitCall(*run, ask);
  ASSERT_TRUE(later.ok()) << later.status();
  EXPECT_FALSE(later->approval_id.empty());
}

TEST_P(RunStateContract, DecidingIsOnceAndNamesWhatIsWrong) {
  const std::string id = Commit(WithApproval(CallPlan::Approval::kRequest))
                             .approval_id;
  EXPECT_EQ(stores_.ledger->Decide("apr_nope", true, "alice", "").status()
                .code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(stores_.ledger->Decide(id, true, "", "").status().code(),
            absl::StatusCode::kInvalidArgument);
  absl::StatusOr<Approval> denied =
      stores_.ledger->Decide(id, false, "alice", "not today");
  ASSERT_TRUE(denied.ok()) << denied.status();
  EXPECT_EQ(denied->state, ApprovalState::kDenied);
  EXPECT_EQ(denied->run_id, run_->id());
  EXPECT_EQ(denied->tool, "write_file");
  EXPECT_EQ(stores_.ledger->Decide(id, true, "bob", "").status().code(),
            absl::StatusCode::kFailedPrecondition);
  const CallOutcome used =
      Commit(WithApproval(CallPlan::Approval::kConsume, id));
  EXPECT_EQ(used.refused_approval.code, "approval_denied");
  EXPECT_EQ(used.refused_approval.message, "denied by alice: not today");
}

TEST_P(RunStateContract, AwaitIsWokenByADecisionMadeElsewhere) {
  const std::string id = Commit(WithApproval(CallPlan::Approval::kRequest))
                             .approval_id;
  std::unique_ptr<ApprovalLedger> elsewhere = stores_.other_ledger();
  EXPECT_EQ(*stores_.ledger->Await(run_->id(), id, absl::Milliseconds(50),
                                   nullptr),
            ApprovalState::kPending);
  std::thread decider([&] {
    absl::SleepFor(absl::Milliseconds(200));
    EXPECT_TRUE(elsewhere->Decide(id, true, "alice", "").ok());
  });
  const absl::Time start = absl::Now();
  absl::StatusOr<ApprovalState> state =
      stores_.ledger->Await(run_->id(), id, absl::Seconds(10), nullptr);
  decider.join();
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(*state, ApprovalState::kApproved);
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  EXPECT_EQ(stores_.ledger->Await("run_other", id, absl::ZeroDuration(),
                                  nullptr)
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

TEST_P(RunStateContract, AnUndecidedApprovalExpires) {
  ApprovalStoreOptions options;
  options.ttl = absl::Milliseconds(300);
  Stores stores = GetParam().make(options);
  auto run = Open(RunLimits{3, 2, 2}, stores);
  const std::string id =
      stores.state->CommitCall(*run, WithApproval(CallPlan::Approval::kRequest))
          ->approval_id;
  const absl::Time start = absl::Now();
  EXPECT_EQ(*stores.ledger->Await(run->id(), id, absl::Seconds(10), nullptr),
            ApprovalState::kExpired);
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  EXPECT_EQ(stores.state
                ->CommitCall(*run,
                             WithApproval(CallPlan::Approval::kConsume, id))
                ->refused_approval.code,
            "approval_expired");
  // Asked again: a new approval, not the expired one.
  EXPECT_NE(stores.state->CommitCall(*run,
                                     WithApproval(CallPlan::Approval::kRequest))
                ->approval_id,
            id);
}

INSTANTIATE_TEST_SUITE_P(
    Stores, RunStateContract, testing::ValuesIn(AllStores()),
    [](const testing::TestParamInfo<StoreFactory>& info) {
      return std::string(info.param.name);
    });

}  // namespace
}  // namespace contract
}  // namespace state
}  // namespace toolgate
