// The contract every run state store keeps (run_commit.h), as sequences of
// commits a run's calls make, checked against every store in kStores. A
// new store (Redis) adds its factory there and must pass unchanged.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "core/approval/approval_store.h"
#include "core/redis/client.h"
#include "core/run/run_registry.h"
#include "core/state/approval_ledger.h"
#include "core/state/memory_run_state.h"
#include "core/state/redis_layout.h"
#include "core/state/redis_run_state.h"
#include "core/state/run_state_store.h"
#include "core/util/ids.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/redis_server.h"

namespace toolgate {
namespace state {
namespace {

// Every run of this suite is opened with this token (the Redis store
// checks it at every commit; the memory store checked it at Authorize).
constexpr char kRunToken[] = "contract-run-token";

// One store under test: its run state, its approvals, and how a run
// opened in the test becomes known to it (the memory store keeps the
// state in the Run; Redis needs the run's record in its hash, as the run
// directory writes it at OpenRun).
struct Stores {
  std::shared_ptr<ApprovalStore> memory;  // The memory store's approvals.
  std::unique_ptr<RunStateStore> state;
  std::unique_ptr<ApprovalLedger> ledger;
  std::function<void(const toolgate::Run&, const RunLimits&)> attach;
  // A second view of the same approvals (another replica's, for Redis).
  std::function<std::unique_ptr<ApprovalLedger>()> other_ledger;
};

struct StoreFactory {
  const char* name;
  std::function<Stores(const ApprovalStoreOptions& options)> make;
};

Stores MemoryStores(const ApprovalStoreOptions& options) {
  auto approvals = std::make_shared<ApprovalStore>(options);
  Stores s;
  s.memory = approvals;
  s.state = std::make_unique<MemoryRunStateStore>(*approvals);
  s.ledger = std::make_unique<MemoryApprovalLedger>(*approvals);
  s.attach = [](const toolgate::Run&, const RunLimits&) {};
  s.other_ledger = [approvals] {
    return std::make_unique<MemoryApprovalLedger>(*approvals);
  };
  return s;
}

// One redis-server for the whole test binary, reached over TCP and over
// its unix socket; each store gets a key prefix of its own, so tests never
// see each other's keys.
redis::Client& SharedRedis(bool unix_socket) {
  static testutil::RedisServer* server = [] {
    testutil::RedisServerOptions options;
    options.unix_socket = true;
    return new testutil::RedisServer(options);
  }();
  static auto connect = [](const std::string& url) {
    redis::ClientOptions options;
    options.connect.address = *redis::ParseAddress(url);
    options.timeout = absl::Seconds(2);
    return redis::Client::Connect(options, absl::Seconds(5))->release();
  };
  static redis::Client* tcp = connect(server->url());
  static redis::Client* unix = connect(server->unix_url());
  return unix_socket ? *unix : *tcp;
}

void AttachToRedis(redis::Client& client, const std::string& prefix,
                   const toolgate::Run& run, const RunLimits& l) {
  ASSERT_TRUE(client
                  .Run("attach",
                       {"HSET", redis_layout::RunKey(prefix, run.id()), "tok",
                        absl::BytesToHexString(Sha256(kRunToken)), "maxrej",
                        absl::StrCat(run.max_consecutive_rejects()), "ks_thr",
                        absl::StrCat(l.kill_switch_threshold), "ks_win",
                        absl::StrCat(l.kill_switch_window), "ttl", "60000",
                        "model", run.model(), "ctx", "{}"})
                  .ok());
}

Stores RedisStores(const ApprovalStoreOptions& o, bool unix_socket) {
  static int next = 0;
  RedisRunStateOptions options;
  options.key_prefix = absl::StrCat("contract", ++next, ":");
  options.approval_ttl = o.ttl;
  options.max_approvals = o.max_approvals;
  options.max_bytes = o.max_bytes;
  options.keep_after_expiry = o.keep_after_expiry;
  options.max_pending_per_run = o.max_pending_per_run;
  options.max_pending_per_tenant = o.max_pending_per_tenant;
  redis::Client& client = SharedRedis(unix_socket);
  Stores s;
  s.state = std::make_unique<RedisRunState>(client, options);
  s.ledger = std::make_unique<RedisApprovalLedger>(client, options);
  s.attach = [&client, options](const toolgate::Run& run, const RunLimits& l) {
    AttachToRedis(client, options.key_prefix, run, l);
  };
  s.other_ledger = [&client, options] {
    return std::make_unique<RedisApprovalLedger>(client, options);
  };
  return s;
}

const StoreFactory kStores[] = {
    {"memory", MemoryStores},
    {"redis",
     [](const ApprovalStoreOptions& o) { return RedisStores(o, false); }},
    {"redis_unix",
     [](const ApprovalStoreOptions& o) { return RedisStores(o, true); }},
};

std::shared_ptr<const Snapshot> TestSnapshot() {
  Manifest m;
  m.tools.push_back(ToolSpec{"t", "", Json(true)});
  auto s = Snapshot::Compile(m, "test");
  EXPECT_TRUE(s.ok()) << s.status();
  return *s;
}

CallPlan Plan() {
  CallPlan plan;
  plan.run_token = kRunToken;
  return plan;
}

CallPlan Allowable() {
  CallPlan plan = Plan();
  plan.allowable = true;
  return plan;
}

CallPlan Misformatted() {
  CallPlan plan = Plan();
  plan.misformat = true;
  return plan;
}

CallPlan WithApproval(CallPlan::Approval kind, std::string id = "") {
  CallPlan plan = Allowable();
  plan.has_write = true;
  plan.approval = kind;
  plan.approval_id = std::move(id);
  plan.tool = "write_file";
  plan.arguments_json = R"({"path":"a"})";
  return plan;
}

CallPlan Charged(int tool_limit, CallPlan plan = Allowable()) {
  BudgetCharge charge;
  charge.tool = "write_file";
  charge.side_effect = SideEffect::kWrite;
  charge.tool_limit = tool_limit;
  plan.has_write = true;
  plan.charges.push_back(charge);
  return plan;
}

class RunStateContract : public testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override {
    stores_ = GetParam().make(ApprovalStoreOptions());
    store_ = stores_.state.get();
    run_ = Open(RunLimits{3, 2, 2}, stores_);
  }

  std::shared_ptr<toolgate::Run> Open(
      RunLimits limits, const Stores& stores,
      std::map<std::string, std::string> context = {}) {
    auto opened = runs_.Open(TestSnapshot(), "m", std::move(context), limits);
    EXPECT_TRUE(opened.ok()) << opened.status();
    stores.attach(*opened->run, limits);
    return opened->run;
  }

  CallOutcome Commit(const CallPlan& plan) {
    absl::StatusOr<CallOutcome> outcome = store_->CommitCall(*run_, plan);
    EXPECT_TRUE(outcome.ok()) << outcome.status();
    return outcome.ok() ? *outcome : CallOutcome();
  }

  std::string Approve(const std::string& id) {
    absl::StatusOr<Approval> decided =
        stores_.ledger->Decide(id, true, "alice", "ok");
    EXPECT_TRUE(decided.ok()) << decided.status();
    return id;
  }

  size_t Listed(ApprovalState state) {
    auto listed = stores_.ledger->List(run_->id(), state);
    EXPECT_TRUE(listed.ok()) << listed.status();
    return listed.ok() ? listed->size() : 0;
  }

  RunRegistry runs_;
  Stores stores_;
  RunStateStore* store_ = nullptr;
  std::shared_ptr<toolgate::Run> run_;
};

TEST_P(RunStateContract, MisformattedRejectsOpenTheBreakerThenStop) {
  struct Step {
    CallPlan plan;
    Decision decision;
    bool recorded;
    int attempt, left;
  };
  const Step steps[] = {
      {Misformatted(), Decision::kReject, true, 1, 2},
      {Allowable(), Decision::kAllow, true, 0, 3},
      {Misformatted(), Decision::kReject, true, 1, 2},
      {Plan(), Decision::kReject, false, 0, 0},  // Not a misformat.
      {Misformatted(), Decision::kReject, true, 2, 1},
      {Misformatted(), Decision::kReject, true, 3, 0},
      {Allowable(), Decision::kStop, false, 3, 0},  // Open: nothing happens.
      {Charged(1), Decision::kStop, false, 3, 0},
  };
  for (const Step& s : steps) {
    const CallOutcome out = Commit(s.plan);
    EXPECT_EQ(out.decision, s.decision);
    EXPECT_EQ(out.stop, s.decision == Decision::kStop);
    EXPECT_EQ(out.loop_recorded, s.recorded);
    if (s.recorded || out.stop) {
      EXPECT_EQ(out.loop.attempt, s.attempt);
      EXPECT_EQ(out.loop.attempts_left, s.left);
    }
    EXPECT_FALSE(out.budget_spent);
  }
  EXPECT_TRUE(store_->BreakerOpenHint(*run_) ||
              GetParam().name != std::string("memory"));
  ASSERT_TRUE(store_->Reset(*run_).ok());
  EXPECT_EQ(Commit(Charged(1)).decision, Decision::kAllow);  // Budget kept.
  EXPECT_EQ(Commit(Charged(1)).budget_refused, 0);
}

TEST_P(RunStateContract, KillSwitchVetoesWritesUntilReset) {
  CallPlan read = Allowable();
  CallPlan write = Allowable();
  write.has_write = true;
  EXPECT_EQ(*store_->RecordOutput(*run_, kRunToken, output::OutputVerdict::kInvalid),
            false);
  EXPECT_EQ(*store_->RecordOutput(*run_, kRunToken, output::OutputVerdict::kInvalid),
            true);
  CallOutcome vetoed = Commit(Charged(5, write));
  EXPECT_TRUE(vetoed.read_only);
  EXPECT_EQ(vetoed.decision, Decision::kReject);
  EXPECT_FALSE(vetoed.loop_recorded);  // The run's own refusal: no misformat.
  EXPECT_FALSE(vetoed.budget_spent);
  EXPECT_EQ(Commit(read).decision, Decision::kAllow);
  ASSERT_TRUE(store_->Reset(*run_).ok());
  CallOutcome after = Commit(write);
  EXPECT_FALSE(after.read_only);
  EXPECT_EQ(after.decision, Decision::kAllow);
}

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

TEST_P(RunStateContract, RefundGivesBackBudgetAndApproval) {
  const std::string id = Approve(
      Commit(WithApproval(CallPlan::Approval::kRequest)).approval_id);
  const CallPlan plan =
      Charged(1, WithApproval(CallPlan::Approval::kConsume, id));
  const CallOutcome spent = Commit(plan);
  ASSERT_EQ(spent.decision, Decision::kAllow);
  ASSERT_TRUE(spent.budget_spent);
  store_->RefundCall(*run_, plan, spent);
  // As if the call never happened: both can be spent again, once.
  EXPECT_EQ(Commit(plan).decision, Decision::kAllow);
  EXPECT_EQ(Commit(plan).decision, Decision::kReject);
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

TEST_P(RunStateContract, FiftyRacingCallsOnABudgetOfThreeAllowThree) {
  std::atomic<int> allowed{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < 50; ++i) {
    threads.emplace_back([&] {
      while (!go.load()) std::this_thread::yield();
      absl::StatusOr<CallOutcome> out = store_->CommitCall(*run_, Charged(3));
      if (out.ok() && out->decision == Decision::kAllow) ++allowed;
    });
  }
  go.store(true);
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(allowed.load(), 3);
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
    Stores, RunStateContract, testing::ValuesIn(kStores),
    [](const testing::TestParamInfo<StoreFactory>& info) {
      return std::string(info.param.name);
    });

}  // namespace
}  // namespace state
}  // namespace toolgate
