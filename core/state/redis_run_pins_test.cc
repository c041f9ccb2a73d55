// Snapshot pins of runs kept in Redis (P{c}:pins:<sid>, redis_layout.h),
// against a real redis-server: a pin must last as long as its run may
// still be used on any replica, and never outlive the run's close.
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "core/redis/address.h"
#include "core/run/run_registry.h"
#include "core/state/redis_layout.h"
#include "core/state/redis_run_directory.h"
#include "core/state/redis_snapshot_backing.h"
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

// OpenRun and CloseRun on several replicas racing DeleteSnapshot: a run
// open (OpenRun answered) all the while a delete ran must have refused
// it; once deleted, no run opens on the snapshot.
TEST_F(RedisRunPinsTest, DeleteNeverWinsAgainstARunOpenAllAlong) {
  struct Span {
    absl::Time opened, closing;
  };
  absl::Mutex mu;
  std::vector<Span> spans;
  std::atomic<bool> deleted{false};
  absl::Time delete_start, delete_end;
  std::vector<std::thread> threads;
  for (int r = 0; r < 3; ++r) {
    threads.emplace_back([&] {
      auto dir = Replica(absl::Seconds(30));
      while (!deleted.load()) {
        auto run = OpenIn(*dir);
        if (!run.ok()) {
          EXPECT_TRUE(absl::IsNotFound(run.status())) << run.status();
          continue;
        }
        const absl::Time opened = absl::Now();
        absl::SleepFor(absl::Milliseconds(3));
        const absl::Time closing = absl::Now();
        EXPECT_TRUE(dir->Close(run->run->id(), run->token).ok());
        {
          absl::MutexLock lock(&mu);
          spans.push_back({opened, closing});
        }
        absl::SleepFor(absl::Milliseconds(6));  // A gap now and then.
      }
    });
  }
  RedisSnapshotBacking backing(*client_, kPrefix);
  // Runs come and go for a while before the deletes start.
  const absl::Time warm = absl::Now() + absl::Seconds(5);
  while (absl::Now() < warm) {
    absl::SleepFor(absl::Milliseconds(10));
    absl::MutexLock lock(&mu);
    if (spans.size() >= 30) break;
  }
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (absl::Now() < deadline && !deleted.load()) {
    const absl::Time start = absl::Now();
    absl::Status s = backing.Delete(snapshot_->id());
    if (s.ok()) {
      delete_start = start;
      delete_end = absl::Now();
      deleted = true;
    } else {
      EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
    }
  }
  deleted = true;
  for (std::thread& t : threads) t.join();
  ASSERT_NE(delete_end, absl::Time()) << "never deleted";
  absl::MutexLock lock(&mu);
  EXPECT_GT(spans.size(), 0u);
  for (const Span& s : spans) {
    EXPECT_FALSE(s.opened < delete_start && s.closing > delete_end);
  }
  EXPECT_EQ(redis_.Cli({"EXISTS", Pins()}), "0");
  auto dir = Replica(absl::Seconds(30));
  EXPECT_TRUE(absl::IsNotFound(OpenIn(*dir).status()));
}

}  // namespace
}  // namespace toolgate::state
