// Runs are bounded (issue 11, "Bounded state"): idle runs close after
// --run_idle_ttl_seconds, each tenant holds at most --max_runs_per_tenant,
// and an open run pins its snapshot in the store until it closes or expires.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "core/run/run_registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string Manifest(const std::string& tool) {
  return absl::StrCat(R"([{"type":"function","function":{"name":")", tool,
                      R"(","parameters":{"type":"object"}}}])");
}

// A clock tests move by hand.
struct FakeClock {
  absl::Time t = absl::UnixEpoch() + absl::Hours(1000);
  std::function<absl::Time()> Fn() {
    return [this] { return t; };
  }
};

RunRegistryOptions Options(FakeClock& clock, absl::Duration ttl,
                           size_t per_tenant = 10000) {
  RunRegistryOptions o;
  o.idle_ttl = ttl;
  o.max_runs_per_tenant = per_tenant;
  o.now = clock.Fn();
  return o;
}

TEST(RunBounds, IdleRunsExpireUseKeepsThemOpen) {
  struct Case {
    std::string label;
    std::vector<absl::Duration> calls_after;  // Authorize after each wait.
    absl::Duration then_wait;
    bool open_at_end;
  };
  const absl::Duration ttl = absl::Seconds(60);
  const std::vector<Case> cases = {
      {"fresh run", {}, absl::Seconds(59), true},
      {"idle exactly the ttl", {}, absl::Seconds(60), false},
      {"each call restarts the idle time",
       {absl::Seconds(50), absl::Seconds(50), absl::Seconds(50)},
       absl::Seconds(59),
       true},
      {"idle after its last call",
       {absl::Seconds(50)},
       absl::Seconds(61),
       false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    FakeClock clock;
    RunRegistry runs(Options(clock, ttl));
    SnapshotStore store;
    auto snapshot = store.Create(Manifest("t"), ManifestFormat::kAuto, "");
    ASSERT_TRUE(snapshot.ok());
    auto opened = runs.Open(*snapshot, "m", {}, RunLimits{});
    ASSERT_TRUE(opened.ok());
    const std::string id = opened->run->id();
    for (absl::Duration wait : c.calls_after) {
      clock.t += wait;
      ASSERT_TRUE(runs.Authorize(id, opened->token).ok());
    }
    clock.t += c.then_wait;
    const auto got = runs.Authorize(id, opened->token);
    EXPECT_EQ(got.ok(), c.open_at_end) << got.status();
    EXPECT_EQ(runs.IsOpen(id), c.open_at_end);
    if (!c.open_at_end) {
      // Like a closed run: NOT_FOUND, whatever the token.
      EXPECT_EQ(got.status().code(), absl::StatusCode::kNotFound);
      EXPECT_EQ(runs.Authorize(id, "wrong").status().code(),
                absl::StatusCode::kNotFound);
      EXPECT_EQ(runs.Sweep(), 1u);
      EXPECT_EQ(runs.size(), 0u);
    }
  }
}

TEST(RunBounds, OpenSweepsExpiredRunsAndUnpinsTheirSnapshots) {
  FakeClock clock;
  SnapshotStore store(SnapshotStoreOptions{JsonLimits{}, 1});
  RunRegistry runs(Options(clock, absl::Seconds(10)), &store);
  auto a = store.Create(Manifest("a"), ManifestFormat::kAuto, "");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(runs.Open(*a, "m", {}, RunLimits{}).ok());
  ASSERT_TRUE(runs.Open(*a, "m", {}, RunLimits{}).ok());
  // Pinned twice: b cannot evict a, and a cannot be deleted.
  EXPECT_EQ(
      store.Create(Manifest("b"), ManifestFormat::kAuto, "").status().code(),
      absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(store.Delete((*a)->id()).code(),
            absl::StatusCode::kFailedPrecondition);
  clock.t += absl::Seconds(11);
  // The next Open sweeps both idle runs (and pins a once more).
  auto again = runs.Open(*a, "m", {}, RunLimits{});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(runs.size(), 1u);
  ASSERT_TRUE(runs.Close(again->run->id(), again->token).ok());
  EXPECT_EQ(runs.size(), 0u);
  // No pins left: a may go.
  EXPECT_TRUE(store.Create(Manifest("b"), ManifestFormat::kAuto, "").ok());
  EXPECT_EQ(store.evicted(), 1u);
  // Opening a run on a snapshot the store no longer holds is NOT_FOUND.
  EXPECT_EQ(runs.Open(*a, "m", {}, RunLimits{}).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(runs.size(), 0u);
}

TEST(RunBounds, SweepIfDueRunsAtMostOncePerSecond) {
  FakeClock clock;
  RunRegistry runs(Options(clock, absl::Milliseconds(100)));
  SnapshotStore store;
  auto s = store.Create(Manifest("t"), ManifestFormat::kAuto, "");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(runs.SweepIfDue(), 0u);  // The first sweep is due at once.
  ASSERT_TRUE(runs.Open(*s, "m", {}, RunLimits{}).ok());
  clock.t += absl::Milliseconds(99);
  EXPECT_EQ(runs.SweepIfDue(), 0u);  // Not idle long enough yet.
  clock.t += absl::Milliseconds(1);
  EXPECT_EQ(runs.SweepIfDue(), 1u);  // A sweep every ttl when ttl < 1 s.
}

TEST(RunBounds, TenantCaps) {
  using Context = std::map<std::string, std::string>;
  struct Case {
    std::string label;
    std::vector<Context> open;  // In order; the last one is checked.
    absl::StatusCode want;
    std::string message;
  };
  const Context acme = {{"tenant", "acme"}};
  const Context globex = {{"tenant", "globex"}};
  const Context none = {};
  const Context empty = {{"tenant", ""}};
  const std::vector<Case> cases = {
      {"under the cap", {acme, acme}, absl::StatusCode::kOk, ""},
      {"over the cap",
       {acme, acme, acme},
       absl::StatusCode::kResourceExhausted,
       "tenant \"acme\" has 2 open runs (--max_runs_per_tenant=2)"},
      {"tenants are counted apart",
       {acme, acme, globex, globex},
       absl::StatusCode::kOk,
       ""},
      {"absent and empty tenant are one tenant",
       {none, empty, none},
       absl::StatusCode::kResourceExhausted,
       "tenant \"\" has 2 open runs"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    FakeClock clock;
    RunRegistry runs(Options(clock, absl::Hours(1), 2));
    SnapshotStore store;
    auto s = store.Create(Manifest("t"), ManifestFormat::kAuto, "");
    ASSERT_TRUE(s.ok());
    absl::Status last;
    for (const Context& context : c.open) {
      last = runs.Open(*s, "m", context, RunLimits{}).status();
    }
    EXPECT_EQ(last.code(), c.want) << last;
    EXPECT_THAT(last.message(), HasSubstr(c.message));
  }
}

TEST(RunBounds, ClosingOrExpiryFreesTheTenantsSlot) {
  FakeClock clock;
  RunRegistry runs(Options(clock, absl::Seconds(10), 1));
  SnapshotStore store;
  auto s = store.Create(Manifest("t"), ManifestFormat::kAuto, "");
  ASSERT_TRUE(s.ok());
  const std::map<std::string, std::string> acme = {{"tenant", "acme"}};
  auto first = runs.Open(*s, "m", acme, RunLimits{});
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(runs.Open(*s, "m", acme, RunLimits{}).ok());
  ASSERT_TRUE(runs.Close(first->run->id(), first->token).ok());
  ASSERT_TRUE(runs.Open(*s, "m", acme, RunLimits{}).ok());
  clock.t += absl::Seconds(10);
  EXPECT_TRUE(runs.Open(*s, "m", acme, RunLimits{}).ok());
  EXPECT_EQ(runs.size(), 1u);
}

// A sweep that ran just before the run expired must not let the expired
// run hold its tenant's slot until the next one (seen over gRPC: the
// background sweep came 0.99 s into a 1 s TTL).
TEST(RunBounds, ExpiredRunsNeverHoldASlotBetweenSweeps) {
  FakeClock clock;
  RunRegistry runs(Options(clock, absl::Seconds(10), 1));
  SnapshotStore store;
  auto s = store.Create(Manifest("t"), ManifestFormat::kAuto, "");
  ASSERT_TRUE(s.ok());
  const std::map<std::string, std::string> acme = {{"tenant", "acme"}};
  ASSERT_TRUE(runs.Open(*s, "m", acme, RunLimits{}).ok());
  clock.t += absl::Milliseconds(9990);
  EXPECT_EQ(runs.Sweep(), 0u);  // Not expired yet.
  clock.t += absl::Milliseconds(20);  // Expired; next sweep not yet due.
  EXPECT_TRUE(runs.Open(*s, "m", acme, RunLimits{}).ok());
  EXPECT_EQ(runs.size(), 1u);
}

TEST(RunBounds, GlobalCapMessageHasTheNumbers) {
  RunRegistryOptions o;
  o.max_runs = 1;
  RunRegistry runs(o);
  SnapshotStore store;
  auto s = store.Create(Manifest("t"), ManifestFormat::kAuto, "");
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(runs.Open(*s, "m", {}, RunLimits{}).ok());
  auto refused = runs.Open(*s, "m", {}, RunLimits{});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.status().message(),
              AllOf(HasSubstr("1 of --max_runs=1")));
}

}  // namespace
}  // namespace toolgate
