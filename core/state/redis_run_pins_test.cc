// Snapshot pins of runs kept in Redis (P{c}:pins:<sid>, redis_layout.h),
// against a real redis-server: a pin must last as long as its run may
// still be used on any replica, and never outlive the run's close.
#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/redis/address.h"
#include "core/run/run_registry.h"
#include "core/state/redis_layout.h"
#include "core/state/redis_run_directory.h"
#include "gtest/gtest.h"
#include "tests/testing/redis_server.h"

namespace toolgate::state {
namespace {

using testutil::RedisServer;

constexpr char kPrefix[] = "toolgate:";

// Leases in `key` still live by the store's clock.
constexpr char kLiveLeases[] = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
)lua";

class RedisRunPinsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(redis_.started());
    Manifest m;
    m.tools.push_back(ToolSpec{"t", "", Json(true)});
    auto s = Snapshot::Compile(m, "pins");
    ASSERT_TRUE(s.ok()) << s.status();
    snapshot_ = *s;
    ASSERT_EQ(redis_.Cli({"HSET",
                          redis_layout::SnapshotKey(kPrefix, snapshot_->id()),
                          "manifest", "{}"}),
              "1");
    redis::ClientOptions o;
    absl::StatusOr<redis::Address> a = redis::ParseAddress(redis_.url());
    ASSERT_TRUE(a.ok()) << a.status();
    o.connect.address = *a;
    o.timeout = absl::Milliseconds(500);
    auto c = redis::Client::Connect(o, absl::Seconds(2));
    ASSERT_TRUE(c.ok()) << c.status();
    client_ = *std::move(c);
  }

  // A replica: its own directory (and cache), with its own idle TTL.
  std::unique_ptr<RedisRunDirectory> Replica(absl::Duration idle_ttl) {
    RedisRunDirectoryOptions o;
    o.key_prefix = kPrefix;
    o.idle_ttl = idle_ttl;
    std::shared_ptr<const Snapshot> snapshot = snapshot_;
    return std::make_unique<RedisRunDirectory>(
        *client_, o,
        [snapshot](absl::string_view id)
            -> absl::StatusOr<std::shared_ptr<const Snapshot>> {
          if (id == snapshot->id()) return snapshot;
          return absl::NotFoundError(absl::StrCat("no snapshot ", id));
        });
  }

  absl::StatusOr<OpenedRun> OpenIn(RunDirectory& dir) {
    return dir.Open(snapshot_, "m", {}, RunLimits{}, {});
  }

  std::string Pins() const {
    return redis_layout::SnapshotPinsKey(kPrefix, snapshot_->id());
  }
  std::string LivePins() const {
    return redis_.Cli({"EVAL", kLiveLeases, "1", Pins()});
  }

  RedisServer redis_;
  std::shared_ptr<const Snapshot> snapshot_;
  std::unique_ptr<redis::Client> client_;
};

// A replica that still holds a run another replica closed must not take
// the run's leases back when it next meets the id (its lease refresh is
// pipelined with the load that finds the run gone): the snapshot would
// stay undeletable, and the run counted, for another 1.25 x idle TTL.
TEST_F(RedisRunPinsTest, ClosedRunIsNotPinnedAgainByAReplicaThatHeldIt) {
  auto a = Replica(absl::Milliseconds(400));
  auto b = Replica(absl::Milliseconds(400));
  auto run = OpenIn(*a);
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_TRUE(b->Close(run->run->id(), run->token).ok());
  ASSERT_EQ(redis_.Cli({"EXISTS", Pins()}), "0");
  absl::SleepFor(absl::Milliseconds(150));  // A's lease refresh is due.
  EXPECT_EQ(a->Authorize(run->run->id(), run->token).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(redis_.Cli({"EXISTS", Pins()}), "0");
  EXPECT_EQ(redis_.Cli({"EXISTS", redis_layout::RunsKey(kPrefix)}), "0");
}

// Replicas may disagree on --run_idle_ttl_seconds while a change rolls
// out. A run keeps the TTL it was opened with (its hash's TTL); its
// leases must follow that TTL, not the TTL of whichever replica serves
// it, or the pin lapses while the run is still open and its snapshot can
// be deleted under it.
TEST_F(RedisRunPinsTest, PinLastsAsLongAsTheRunWhateverTheReplicasTtl) {
  auto a = Replica(absl::Milliseconds(2000));
  auto b = Replica(absl::Milliseconds(200));
  auto run = OpenIn(*a);
  ASSERT_TRUE(run.ok()) << run.status();
  const std::string key = redis_layout::RunKey(kPrefix, run->run->id());
  // Used on B for 1.5 s: the run's hash lives 2 s past the last use.
  const absl::Time until = absl::Now() + absl::Milliseconds(1500);
  while (absl::Now() < until) {
    ASSERT_TRUE(b->Authorize(run->run->id(), run->token).ok());
    absl::SleepFor(absl::Milliseconds(60));
  }
  absl::SleepFor(absl::Milliseconds(1300));
  ASSERT_NE(redis_.Cli({"PTTL", key}), "-2");  // Still open.
  EXPECT_EQ(LivePins(), "1");
  ASSERT_TRUE(a->Authorize(run->run->id(), run->token).ok());
}

}  // namespace
}  // namespace toolgate::state
