#include "core/approval/approval_store.h"

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

constexpr char kArgs[] = R"({"path":"/tmp/a"})";

// A clock tests move by hand; read from Await's thread too, hence the lock.
class FakeClock {
 public:
  absl::Time Now() {
    absl::MutexLock lock(&mu_);
    return now_;
  }
  void Advance(absl::Duration d) {
    absl::MutexLock lock(&mu_);
    now_ += d;
  }

 private:
  absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_) = absl::FromUnixSeconds(1700000000);
};

class ApprovalStoreTest : public ::testing::Test {
 protected:
  ApprovalStoreOptions Options() {
    ApprovalStoreOptions options;
    options.ttl = absl::Seconds(60);
    options.now = [clock = clock_] { return clock->Now(); };
    return options;
  }
  Approval MustRequest(ApprovalStore& store, const std::string& run,
                       const std::string& tool = "write_file",
                       const std::string& args = kArgs) {
    absl::StatusOr<Approval> a =
        store.Request(run, tool, args, {{"tenant", "t1"}}, "m1");
    EXPECT_TRUE(a.ok()) << a.status();
    return a.ok() ? *a : Approval{};
  }
  Approval MustDecide(ApprovalStore& store, const std::string& id,
                      bool approve) {
    absl::StatusOr<Approval> a = store.Decide(id, approve, "alice", "ok");
    EXPECT_TRUE(a.ok()) << a.status();
    return a.ok() ? *a : Approval{};
  }

  std::shared_ptr<FakeClock> clock_ = std::make_shared<FakeClock>();
};

TEST(ApprovalStateNameTest, Names) {
  EXPECT_EQ(ApprovalStateName(ApprovalState::kPending), "PENDING");
  EXPECT_EQ(ApprovalStateName(ApprovalState::kApproved), "APPROVED");
  EXPECT_EQ(ApprovalStateName(ApprovalState::kDenied), "DENIED");
  EXPECT_EQ(ApprovalStateName(ApprovalState::kExpired), "EXPIRED");
  EXPECT_EQ(ApprovalStateName(ApprovalState::kUsed), "USED");
  EXPECT_EQ(ApprovalStateName(ApprovalState::kUnspecified), "UNSPECIFIED");
}

TEST_F(ApprovalStoreTest, HappyPath) {
  ApprovalStore store(Options());
  const Approval a = MustRequest(store, "run1");
  EXPECT_EQ(a.approval_id.substr(0, 4), "apr_");
  EXPECT_EQ(a.approval_id.size(), 4u + 32u);
  EXPECT_EQ(a.state, ApprovalState::kPending);
  EXPECT_EQ(a.run_id, "run1");
  EXPECT_EQ(a.tool, "write_file");
  EXPECT_EQ(a.arguments_json, kArgs);
  EXPECT_EQ(a.model, "m1");
  EXPECT_EQ(a.run_context.at("tenant"), "t1");
  EXPECT_EQ(a.expires_at - a.created_at, absl::Seconds(60));
  EXPECT_EQ(a.decided_at, absl::InfinitePast());

  std::vector<Approval> pending = store.List("run1", ApprovalState::kPending);
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].approval_id, a.approval_id);

  const Approval decided = MustDecide(store, a.approval_id, true);
  EXPECT_EQ(decided.state, ApprovalState::kApproved);
  EXPECT_EQ(decided.approver, "alice");
  EXPECT_EQ(decided.reason, "ok");
  EXPECT_EQ(decided.decided_at, clock_->Now());
  EXPECT_TRUE(store.List("run1", ApprovalState::kPending).empty());

  EXPECT_TRUE(store.Consume("run1", a.approval_id, "write_file", kArgs).ok());
  std::vector<Approval> all = store.List("", ApprovalState::kUnspecified);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].state, ApprovalState::kUsed);
}

TEST_F(ApprovalStoreTest, IdenticalPendingRequestIsDeduplicated) {
  ApprovalStore store(Options());
  const Approval a = MustRequest(store, "run1");
  clock_->Advance(absl::Seconds(1));
  EXPECT_EQ(MustRequest(store, "run1").approval_id, a.approval_id);
  EXPECT_EQ(store.size(), 1u);

  EXPECT_NE(MustRequest(store, "run1", "write_file", R"({"path":"/tmp/b"})")
                .approval_id,
            a.approval_id);
  EXPECT_NE(MustRequest(store, "run1", "delete_file").approval_id,
            a.approval_id);
  EXPECT_NE(MustRequest(store, "run2").approval_id, a.approval_id);
  EXPECT_EQ(store.size(), 4u);

  // Once decided (or expired) the same call asks anew.
  MustDecide(store, a.approval_id, false);
  EXPECT_NE(MustRequest(store, "run1").approval_id, a.approval_id);
}

TEST_F(ApprovalStoreTest, RequestNeedsRunAndTool) {
  ApprovalStore store(Options());
  EXPECT_EQ(store.Request("", "t", kArgs, {}, "m").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store.Request("r", "", kArgs, {}, "m").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(ApprovalStoreTest, ListFiltersAndOrders) {
  ApprovalStore store(Options());
  const Approval a = MustRequest(store, "run1", "t1");
  clock_->Advance(absl::Seconds(1));
  const Approval b = MustRequest(store, "run2", "t2");
  clock_->Advance(absl::Seconds(1));
  const Approval c = MustRequest(store, "run1", "t3");
  MustDecide(store, c.approval_id, true);

  std::vector<Approval> all = store.List("", ApprovalState::kUnspecified);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].approval_id, a.approval_id);
  EXPECT_EQ(all[1].approval_id, b.approval_id);
  EXPECT_EQ(all[2].approval_id, c.approval_id);
  EXPECT_EQ(store.List("run1", ApprovalState::kUnspecified).size(), 2u);
  EXPECT_EQ(store.List("run1", ApprovalState::kApproved).size(), 1u);
  EXPECT_TRUE(store.List("run3", ApprovalState::kUnspecified).empty());

  clock_->Advance(absl::Seconds(60));  // All past expiry; none used.
  // The two never decided are gone at their expiry; the approved one, not
  // used, shows as expired.
  std::vector<Approval> expired = store.List("", ApprovalState::kExpired);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].approval_id, c.approval_id);
  EXPECT_TRUE(store.List("", ApprovalState::kPending).empty());
  EXPECT_EQ(store.size(), 1u);
}

// Every code Consume can answer with, from one table.
TEST_F(ApprovalStoreTest, ConsumeCodes) {
  enum Setup { kLeavePending, kApprove, kDeny, kApproveThenExpire, kUseOnce };
  struct Case {
    const char* name;
    Setup setup;
    const char* run;
    const char* id;  // Null: the requested approval's.
    const char* tool;
    const char* args;
    const char* code;
    const char* message_has;
  };
  const Case cases[] = {
      {"ok", kApprove, "run1", nullptr, "write_file", kArgs, "", ""},
      {"pending", kLeavePending, "run1", nullptr, "write_file", kArgs,
       "approval_pending", ""},
      {"denied", kDeny, "run1", nullptr, "write_file", kArgs, "approval_denied",
       "alice"},
      {"expired", kApproveThenExpire, "run1", nullptr, "write_file", kArgs,
       "approval_expired", ""},
      {"used", kUseOnce, "run1", nullptr, "write_file", kArgs, "approval_used",
       ""},
      {"other tool", kApprove, "run1", nullptr, "delete_file", kArgs,
       "approval_mismatch", "tool"},
      {"other arguments", kApprove, "run1", nullptr, "write_file", "{}",
       "approval_mismatch", "arguments"},
      {"other run", kApprove, "run2", nullptr, "write_file", kArgs,
       "approval_mismatch", "run"},
      {"unknown id", kApprove, "run1", "apr_00", "write_file", kArgs,
       "approval_mismatch", "run"},
      {"empty id", kApprove, "run1", "", "write_file", kArgs,
       "approval_mismatch", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto clock = std::make_shared<FakeClock>();
    ApprovalStoreOptions options = Options();
    options.now = [clock] { return clock->Now(); };
    ApprovalStore store(options);
    const Approval a = MustRequest(store, "run1");
    if (c.setup != kLeavePending) {
      MustDecide(store, a.approval_id, c.setup != kDeny);
    }
    if (c.setup == kApproveThenExpire) clock->Advance(absl::Seconds(60));
    if (c.setup == kUseOnce) {
      ASSERT_TRUE(
          store.Consume("run1", a.approval_id, "write_file", kArgs).ok());
    }
    const Consumption got = store.Consume(
        c.run, c.id == nullptr ? a.approval_id : c.id, c.tool, c.args);
    EXPECT_EQ(got.code, c.code);
    EXPECT_EQ(got.ok(), std::string(c.code).empty());
    EXPECT_NE(got.message.find(c.message_has), std::string::npos)
        << got.message;
  }
}

TEST_F(ApprovalStoreTest, OtherRunAndUnknownIdReadTheSame) {
  ApprovalStore store(Options());
  const Approval a = MustRequest(store, "run1");
  MustDecide(store, a.approval_id, true);
  const Consumption other =
      store.Consume("run2", a.approval_id, "write_file", kArgs);
  const Consumption unknown =
      store.Consume("run2", "apr_nope", "write_file", kArgs);
  EXPECT_EQ(other.code, unknown.code);
  EXPECT_EQ(other.message, unknown.message);
  // A mismatch does not use it up.
  EXPECT_TRUE(store.Consume("run1", a.approval_id, "write_file", kArgs).ok());
}

TEST_F(ApprovalStoreTest, DecideErrors) {
  ApprovalStore store(Options());
  const Approval a = MustRequest(store, "run1");
  EXPECT_EQ(store.Decide(a.approval_id, true, "", "r").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store.Decide("", true, "alice", "r").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store.Decide("apr_unknown", true, "alice", "r").status().code(),
            absl::StatusCode::kNotFound);

  MustDecide(store, a.approval_id, true);
  absl::StatusOr<Approval> again =
      store.Decide(a.approval_id, false, "bob", "");
  EXPECT_EQ(again.status().code(), absl::StatusCode::kFailedPrecondition);
  // The first decision stands.
  EXPECT_EQ(store.List("run1", ApprovalState::kApproved).at(0).approver,
            "alice");

  const Approval b = MustRequest(store, "run1", "delete_file");
  clock_->Advance(absl::Seconds(60));
  absl::StatusOr<Approval> late =
      store.Decide(b.approval_id, true, "alice", "");
  EXPECT_EQ(late.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(late.status().message().find("expired"), std::string::npos);

  const Approval c = MustRequest(store, "run1", "t3");
  MustDecide(store, c.approval_id, true);
  ASSERT_TRUE(store.Consume("run1", c.approval_id, "t3", kArgs).ok());
  EXPECT_EQ(store.Decide(c.approval_id, false, "bob", "").status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(ApprovalStoreTest, AwaitReturnsAsSoonAsDecided) {
  ApprovalStore store(Options());
  const Approval a = MustRequest(store, "run1");
  std::thread decider([&] {
    absl::SleepFor(absl::Milliseconds(50));
    MustDecide(store, a.approval_id, true);
  });
  const absl::Time start = absl::Now();
  absl::StatusOr<ApprovalState> state =
      store.Await("run1", a.approval_id, absl::Seconds(30));
  const absl::Duration took = absl::Now() - start;
  decider.join();
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(*state, ApprovalState::kApproved);
  EXPECT_LT(took, absl::Seconds(5));
}

TEST_F(ApprovalStoreTest, AwaitWakesEveryWaiter) {
  ApprovalStore store(Options());
  const Approval a = MustRequest(store, "run1");
  std::vector<std::thread> waiters;
  std::atomic<int> denied{0};
  for (int i = 0; i < 4; ++i) {
    waiters.emplace_back([&] {
      absl::StatusOr<ApprovalState> s =
          store.Await("run1", a.approval_id, absl::Seconds(30));
      if (s.ok() && *s == ApprovalState::kDenied) ++denied;
    });
  }
  absl::SleepFor(absl::Milliseconds(50));
  const absl::Time start = absl::Now();
  MustDecide(store, a.approval_id, false);
  for (std::thread& t : waiters) t.join();
  EXPECT_EQ(denied.load(), 4);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

TEST_F(ApprovalStoreTest, AwaitIgnoresOtherApprovalsDecisions) {
  ApprovalStore store(Options());
  const Approval a = MustRequest(store, "run1");
  const Approval b = MustRequest(store, "run1", "other");
  std::thread decider([&] {
    absl::SleepFor(absl::Milliseconds(20));
    MustDecide(store, b.approval_id, true);
  });
  const absl::Time start = absl::Now();
  absl::StatusOr<ApprovalState> state =
      store.Await("run1", a.approval_id, absl::Milliseconds(200));
  decider.join();
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(*state, ApprovalState::kPending);
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(200));
}

TEST_F(ApprovalStoreTest, AwaitTimesOutPending) {
  ApprovalStore store(Options());
  const Approval a = MustRequest(store, "run1");
  const absl::Time start = absl::Now();
  absl::StatusOr<ApprovalState> state =
      store.Await("run1", a.approval_id, absl::Milliseconds(100));
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(*state, ApprovalState::kPending);
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(100));
  EXPECT_EQ(*store.Await("run1", a.approval_id, absl::ZeroDuration()),
            ApprovalState::kPending);
}

TEST_F(ApprovalStoreTest, AwaitAlreadyDecidedOrExpiredReturnsAtOnce) {
  ApprovalStore store(Options());
  const Approval a = MustRequest(store, "run1");
  const Approval b = MustRequest(store, "run1", "other");
  MustDecide(store, a.approval_id, false);
  EXPECT_EQ(*store.Await("run1", a.approval_id, absl::Seconds(30)),
            ApprovalState::kDenied);
  clock_->Advance(absl::Seconds(60));
  const absl::Time start = absl::Now();
  EXPECT_EQ(*store.Await("run1", b.approval_id, absl::Seconds(30)),
            ApprovalState::kExpired);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

TEST(ApprovalStoreRealClockTest, AwaitWakesAtExpiry) {
  ApprovalStoreOptions options;
  options.ttl = absl::Milliseconds(100);
  ApprovalStore store(options);
  absl::StatusOr<Approval> a = store.Request("run1", "t", "{}", {}, "m");
  ASSERT_TRUE(a.ok());
  const absl::Time start = absl::Now();
  absl::StatusOr<ApprovalState> state =
      store.Await("run1", a->approval_id, absl::Seconds(30));
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(*state, ApprovalState::kExpired);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

TEST_F(ApprovalStoreTest, AwaitOtherRunOrUnknownIsNotFound) {
  ApprovalStore store(Options());
  const Approval a = MustRequest(store, "run1");
  absl::StatusOr<ApprovalState> other =
      store.Await("run2", a.approval_id, absl::Seconds(30));
  absl::StatusOr<ApprovalState> unknown =
      store.Await("run1", "apr_unknown", absl::Seconds(30));
  EXPECT_EQ(other.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store.Await("", a.approval_id, absl::Seconds(1)).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(ApprovalStoreTest, AwaitReturnsWhenCancelled) {
  ApprovalStore store(Options());
  const Approval a = MustRequest(store, "run1");
  std::atomic<bool> gone{false};
  std::atomic<int> asked{0};
  std::thread leaver([&] {
    absl::SleepFor(absl::Milliseconds(50));
    gone = true;
  });
  const absl::Time start = absl::Now();
  absl::StatusOr<ApprovalState> state =
      store.Await("run1", a.approval_id, absl::Seconds(30), [&] {
        ++asked;
        return gone.load();
      });
  leaver.join();
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(*state, ApprovalState::kPending);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_GE(asked.load(), 1);
}

TEST_F(ApprovalStoreTest, ThirtyTwoConsumersExactlyOneWins) {
  ApprovalStore store(Options());
  const Approval a = MustRequest(store, "run1");
  MustDecide(store, a.approval_id, true);
  std::atomic<int> ok{0};
  std::atomic<int> used{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < 32; ++i) {
    threads.emplace_back([&] {
      while (!go.load()) std::this_thread::yield();
      const Consumption c =
          store.Consume("run1", a.approval_id, "write_file", kArgs);
      if (c.ok()) ++ok;
      if (c.code == "approval_used") ++used;
    });
  }
  go = true;
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(ok.load(), 1);
  EXPECT_EQ(used.load(), 31);
}

TEST_F(ApprovalStoreTest, ConcurrentDecisionsOnlyOneStands) {
  for (int round = 0; round < 20; ++round) {
    ApprovalStore store(Options());
    const Approval a = MustRequest(store, "run1");
    std::atomic<int> succeeded{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> deciders;
    for (bool approve : {true, false}) {
      deciders.emplace_back([&, approve] {
        while (!go.load()) std::this_thread::yield();
        if (store.Decide(a.approval_id, approve, "x", "").ok()) ++succeeded;
      });
    }
    go = true;
    for (std::thread& t : deciders) t.join();
    EXPECT_EQ(succeeded.load(), 1);
    EXPECT_EQ(store.List("run1", ApprovalState::kPending).size(), 0u);
  }
}

TEST_F(ApprovalStoreTest, PendingPerRunCap) {
  ApprovalStoreOptions options = Options();
  options.max_pending_per_run = 2;
  ApprovalStore store(options);
  const Approval a = MustRequest(store, "run1", "t1");
  MustRequest(store, "run1", "t2");
  EXPECT_EQ(store.Request("run1", "t3", kArgs, {}, "m").status().code(),
            absl::StatusCode::kResourceExhausted);
  // The dedupe still answers at the cap; other runs are not affected.
  EXPECT_EQ(MustRequest(store, "run1", "t1").approval_id, a.approval_id);
  MustRequest(store, "run2", "t3");
  // Deciding one frees a pending slot.
  MustDecide(store, a.approval_id, true);
  MustRequest(store, "run1", "t3");
}

TEST_F(ApprovalStoreTest, TotalCapAndSweepFrees) {
  ApprovalStoreOptions options = Options();
  options.max_approvals = 3;
  ApprovalStore store(options);
  const Approval a = MustRequest(store, "run1", "t1");
  MustRequest(store, "run2", "t2");
  MustRequest(store, "run3", "t3");
  absl::Status full = store.Request("run4", "t4", kArgs, {}, "m").status();
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(full.message().find("--max_approvals=3"), std::string::npos);
  EXPECT_EQ(store.Sweep(), 0u);  // Nothing is stale yet.

  MustDecide(store, a.approval_id, false);
  clock_->Advance(absl::Seconds(61));
  // The two never decided go at their expiry; the denied one is kept an
  // hour after its decision.
  EXPECT_EQ(store.Sweep(), 2u);
  EXPECT_EQ(store.size(), 1u);
  MustRequest(store, "run4", "t4");
  MustRequest(store, "run5", "t5");
  clock_->Advance(absl::Hours(1));
  // Request sweeps by itself: the denied one and both expired pending.
  MustRequest(store, "run6", "t6");
  EXPECT_EQ(store.size(), 1u);
  EXPECT_TRUE(store.List("run1", ApprovalState::kUnspecified).empty());
}

// Issue 25, item 13: one tenant filled the whole store with approvals
// nobody decided, and the others were refused for an hour past their
// expiry. Never-decided approvals now go when they expire.
TEST_F(ApprovalStoreTest, ExpiredPendingApprovalsFreeTheStoreAtOnce) {
  ApprovalStoreOptions options = Options();
  options.max_approvals = 3;
  ApprovalStore store(options);
  for (const char* run : {"flood1", "flood2", "flood3"}) {
    ASSERT_TRUE(
        store.Request(run, "t", kArgs, {{"tenant", "greedy"}}, "m").ok());
  }
  EXPECT_EQ(store.Request("other", "t", kArgs, {{"tenant", "b"}}, "m")
                .status()
                .code(),
            absl::StatusCode::kResourceExhausted);
  clock_->Advance(absl::Seconds(60));  // Their expiry, not an hour later.
  EXPECT_TRUE(store.Request("other", "t", kArgs, {{"tenant", "b"}}, "m").ok());
  EXPECT_EQ(store.size(), 1u);
  EXPECT_EQ(store.pending_of_tenant("greedy"), 0u);
}

TEST_F(ApprovalStoreTest, PendingPerTenantCap) {
  ApprovalStoreOptions options = Options();
  options.max_pending_per_tenant = 3;
  ApprovalStore store(options);
  const std::map<std::string, std::string> t1 = {{"tenant", "t1"}};
  auto ask = [&](const std::string& run, const std::string& tool,
                 const std::map<std::string, std::string>& context) {
    return store.Request(run, tool, kArgs, context, "m");
  };
  // Three pending for t1, across two runs.
  const absl::StatusOr<Approval> first = ask("r1", "a", t1);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(ask("r1", "b", t1).ok());
  ASSERT_TRUE(ask("r2", "a", t1).ok());
  absl::Status full = ask("r3", "a", t1).status();
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(full.message().find("tenant \"t1\""), std::string::npos);
  EXPECT_NE(full.message().find("--max_pending_approvals_per_tenant=3"),
            std::string::npos)
      << full.message();
  // The identical request still gets its approval back at the cap.
  EXPECT_EQ(ask("r1", "a", t1)->approval_id, first->approval_id);
  // Other tenants (the unnamed one too) are not affected.
  EXPECT_TRUE(ask("r4", "a", {{"tenant", "t2"}}).ok());
  EXPECT_TRUE(ask("r5", "a", {}).ok());
  EXPECT_TRUE(ask("r6", "a", {{"tenant", ""}}).ok());
  EXPECT_EQ(store.pending_of_tenant("t1"), 3u);
  EXPECT_EQ(store.pending_of_tenant(""), 2u);
  // A decision frees a slot of its tenant; so does expiry.
  MustDecide(store, first->approval_id, false);
  EXPECT_TRUE(ask("r3", "a", t1).ok());
  EXPECT_EQ(ask("r3", "b", t1).status().code(),
            absl::StatusCode::kResourceExhausted);
  clock_->Advance(absl::Seconds(60));
  EXPECT_TRUE(ask("r3", "b", t1).ok());
  EXPECT_EQ(store.pending_of_tenant("t1"), 1u);
}

// Dropped at expiry, an approval nobody decided still reads "expired" to
// its run (a tombstone), and only to its run.
TEST_F(ApprovalStoreTest, DroppedAtExpiryStillReadsExpired) {
  ApprovalStore store(Options());
  const Approval a = MustRequest(store, "run1");
  const size_t one = store.bytes();
  EXPECT_EQ(one, ApprovalBytes(a));
  clock_->Advance(absl::Seconds(60));
  MustRequest(store, "run2");  // Drops a.
  EXPECT_EQ(store.size(), 1u);
  EXPECT_EQ(store.bytes(), one);  // run2's approval, same size.
  EXPECT_TRUE(store.List("run1", ApprovalState::kUnspecified).empty());
  const Consumption used =
      store.Consume("run1", a.approval_id, "write_file", kArgs);
  EXPECT_EQ(used.code, "approval_expired");
  const Consumption other =
      store.Consume("run2", a.approval_id, "write_file", kArgs);
  const Consumption unknown =
      store.Consume("run2", "apr_nope", "write_file", kArgs);
  EXPECT_EQ(other.code, "approval_mismatch");
  EXPECT_EQ(other.message, unknown.message);
  EXPECT_EQ(*store.Await("run1", a.approval_id, absl::Seconds(30)),
            ApprovalState::kExpired);
  EXPECT_EQ(
      store.Await("run2", a.approval_id, absl::Seconds(30)).status().code(),
      absl::StatusCode::kNotFound);
  EXPECT_EQ(store.Decide(a.approval_id, true, "alice", "").status().code(),
            absl::StatusCode::kFailedPrecondition);
  // The tombstone lasts keep_after_expiry.
  clock_->Advance(absl::Hours(1) + absl::Seconds(1));
  store.Sweep();
  EXPECT_EQ(store.Consume("run1", a.approval_id, "write_file", kArgs).code,
            "approval_mismatch");
}

TEST_F(ApprovalStoreTest, TombstonesAreBoundedInNumber) {
  ApprovalStoreOptions options = Options();
  options.max_approvals = 2;
  ApprovalStore store(options);
  std::vector<std::string> ids;
  for (int i = 0; i < 6; ++i) {
    ids.push_back(MustRequest(store, "run1", absl::StrCat("t", i)).approval_id);
    clock_->Advance(absl::Seconds(60));
  }
  EXPECT_EQ(store.Sweep(), 1u);
  EXPECT_EQ(store.size(), 0u);
  // The two most recent still read expired; older ones are forgotten.
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(store.Consume("run1", ids[i], absl::StrCat("t", i), kArgs).code,
              i >= 4 ? "approval_expired" : "approval_mismatch")
        << i;
  }
}

TEST_F(ApprovalStoreTest, ByteCapCountsArgumentsAndReturnsThem) {
  const std::string big =
      absl::StrCat(R"({"x":")", std::string(10000, 'a'), R"("})");
  ApprovalStoreOptions options = Options();
  options.max_bytes = 2 * (10000 + 2000);
  ApprovalStore store(options);
  ASSERT_TRUE(store.Request("r1", "t", big, {}, "m").ok());
  ASSERT_TRUE(store.Request("r2", "t", big, {}, "m").ok());
  absl::Status full = store.Request("r3", "t", big, {}, "m").status();
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(full.message().find("--max_approval_bytes="), std::string::npos);
  EXPECT_TRUE(store.Request("r3", "t", "{}", {}, "m").ok());  // Small fits.
  clock_->Advance(absl::Seconds(60));
  EXPECT_TRUE(store.Request("r3", "t", big, {}, "m").ok());
  EXPECT_LT(store.bytes(), 10000u + 2000u);
}

TEST_F(ApprovalStoreTest, WaiterOfAnApprovalDroppedAtExpiryHearsExpired) {
  ApprovalStore store(Options());
  const Approval a = MustRequest(store, "run1");
  absl::StatusOr<ApprovalState> state;
  std::thread waiter(
      [&] { state = store.Await("run1", a.approval_id, absl::Seconds(60)); });
  clock_->Advance(absl::Seconds(60));
  store.Sweep();  // Drops it and wakes the waiter.
  waiter.join();
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(*state, ApprovalState::kExpired);
}

TEST_F(ApprovalStoreTest, ReleaseAllowsOneMoreConsume) {
  ApprovalStore store(Options());
  const Approval a = MustRequest(store, "run1");
  store.Release(a.approval_id);  // Pending: no-op.
  EXPECT_EQ(store.Consume("run1", a.approval_id, "write_file", kArgs).code,
            "approval_pending");
  MustDecide(store, a.approval_id, true);
  ASSERT_TRUE(store.Consume("run1", a.approval_id, "write_file", kArgs).ok());
  store.Release(a.approval_id);
  EXPECT_EQ(store.List("run1", ApprovalState::kApproved).size(), 1u);
  ASSERT_TRUE(store.Consume("run1", a.approval_id, "write_file", kArgs).ok());
  EXPECT_EQ(store.Consume("run1", a.approval_id, "write_file", kArgs).code,
            "approval_used");
  store.Release("apr_unknown");  // No-op.
}

TEST_F(ApprovalStoreTest, ReleasedAfterExpiryCannotBeUsed) {
  ApprovalStore store(Options());
  const Approval a = MustRequest(store, "run1");
  MustDecide(store, a.approval_id, true);
  ASSERT_TRUE(store.Consume("run1", a.approval_id, "write_file", kArgs).ok());
  clock_->Advance(absl::Seconds(60));
  store.Release(a.approval_id);
  EXPECT_EQ(store.Consume("run1", a.approval_id, "write_file", kArgs).code,
            "approval_expired");
}

}  // namespace
}  // namespace toolgate
