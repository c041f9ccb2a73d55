// Replicas sharing snapshots through Redis (redis_snapshot_backing.h): each
// replica is a SnapshotStore with its own client and backing, all on one
// real redis-server. A replica must find what another created, names must
// follow the rules across replicas, and no failure of the store may be
// answered from a stale local copy of a name or with another snapshot.
#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "core/redis/client.h"
#include "core/snapshot/snapshot.h"
#include "core/snapshot/snapshot_backing.h"
#include "core/state/redis_layout.h"
#include "core/state/redis_snapshot_backing.h"
#include "gtest/gtest.h"
#include "tests/testing/redis_server.h"

namespace toolgate {
namespace state {
namespace {

using testutil::RedisServer;

std::string Manifest(const std::string& tool) {
  return R"([{"type":"function","function":{"name":")" + tool +
         R"(","parameters":{"type":"object"}}}])";
}

// One replica: its own connections, backing and store.
struct Replica {
  std::unique_ptr<redis::Client> client;
  std::unique_ptr<RedisSnapshotBacking> backing;
  std::unique_ptr<SnapshotStore> store;
};

class RedisSnapshotBackingTest : public testing::Test {
 protected:
  void SetUp() override {
    redis_ = std::make_unique<RedisServer>();
    ASSERT_TRUE(redis_->started());
    a_ = NewReplica();
    b_ = NewReplica();
  }

  std::unique_ptr<Replica> NewReplica(SnapshotStoreOptions options = {}) {
    auto replica = std::make_unique<Replica>();
    redis::ClientOptions o;
    o.connect.address = *redis::ParseAddress(redis_->url());
    o.timeout = absl::Milliseconds(200);
    auto client = redis::Client::Connect(o, absl::Seconds(5));
    EXPECT_TRUE(client.ok()) << client.status();
    if (!client.ok()) return nullptr;
    replica->client = *std::move(client);
    replica->backing = std::make_unique<RedisSnapshotBacking>(*replica->client);
    replica->store = std::make_unique<SnapshotStore>(options);
    replica->store->SetBacking(replica->backing.get());
    return replica;
  }

  std::string Create(Replica& r, const std::string& tool,
                     const std::string& name,
                     NameRule rule = NameRule::kClaim) {
    auto s = r.store->Create(Manifest(tool), ManifestFormat::kAuto, name, rule);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? (*s)->id() : "";
  }

  std::unique_ptr<RedisServer> redis_;
  std::unique_ptr<Replica> a_, b_;
};

TEST_F(RedisSnapshotBackingTest, AnotherReplicaFindsByIdAndName) {
  auto created = a_->store->Create(Manifest("crm_lookup"),
                                   ManifestFormat::kAuto, "crm");
  ASSERT_TRUE(created.ok()) << created.status();
  auto by_id = b_->store->Get((*created)->id());
  ASSERT_TRUE(by_id.ok()) << by_id.status();
  EXPECT_EQ((*by_id)->id(), (*created)->id());
  EXPECT_EQ((*by_id)->name(), "crm");
  EXPECT_EQ((*by_id)->tool_names(), (*created)->tool_names());
  EXPECT_NE((*by_id)->FindTool("crm_lookup"), nullptr);
  auto by_name = b_->store->GetByName("crm");
  ASSERT_TRUE(by_name.ok()) << by_name.status();
  EXPECT_EQ(*by_name, *by_id);  // Compiled once on B, then cached.
  EXPECT_EQ(b_->store->size(), 1u);
}

TEST_F(RedisSnapshotBackingTest, FirstNameIsEveryReplicasName) {
  const std::string id = Create(*a_, "t", "first");
  auto again = b_->store->Create(Manifest("t"), ManifestFormat::kAuto, "");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)->id(), id);
  EXPECT_EQ((*again)->name(), "first");
}

TEST_F(RedisSnapshotBackingTest, ClaimedNameIsRefusedOnAnotherReplica) {
  const std::string first = Create(*a_, "a", "crm");
  auto other = b_->store->Create(Manifest("b"), ManifestFormat::kAuto, "crm");
  ASSERT_EQ(other.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(other.status(), NameBoundError("crm", first));
  // Refused before anything was written: "b" is stored nowhere.
  EXPECT_EQ(b_->store->ListAfter("", 10).size(), 1u);
  EXPECT_EQ((*b_->store->GetByName("crm"))->id(), first);

  const std::string second = Create(*b_, "b", "crm", NameRule::kRebind);
  ASSERT_NE(second, first);
  auto resolved = a_->store->GetByName("crm");
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ((*resolved)->id(), second);  // Not A's own copy of "crm".
  // An admin-bound name is not re-claimed back.
  auto back = a_->store->Create(Manifest("a"), ManifestFormat::kAuto, "crm");
  EXPECT_EQ(back.status().code(), absl::StatusCode::kPermissionDenied);
}

TEST_F(RedisSnapshotBackingTest, LoadedNameHoldsAcrossReplicas) {
  const std::string loaded = Create(*a_, "strict", "tickets", NameRule::kLoad);
  for (NameRule rule : {NameRule::kClaim, NameRule::kRebind}) {
    auto hijack = b_->store->Create(Manifest("permissive"),
                                    ManifestFormat::kAuto, "tickets", rule);
    EXPECT_EQ(hijack.status(), NameLoadedError("tickets"));
  }
  EXPECT_EQ(b_->store->Delete(loaded),
            SnapshotLoadedError(loaded, "tickets"));
  const std::string reloaded = Create(*b_, "v2", "tickets", NameRule::kLoad);
  EXPECT_EQ((*a_->store->GetByName("tickets"))->id(), reloaded);
  EXPECT_TRUE(b_->store->Delete(loaded).ok());
}

TEST_F(RedisSnapshotBackingTest, DeleteUnbindsTheNameOnEveryReplica) {
  const std::string id = Create(*a_, "a", "crm");
  ASSERT_TRUE(b_->store->GetByName("crm").ok());  // Cached on B.
  ASSERT_TRUE(a_->store->Delete(id).ok());
  EXPECT_EQ(b_->store->GetByName("crm").status().code(),
            absl::StatusCode::kNotFound);
  // B still serves its compiled copy by id: content-addressed, so it is
  // still exactly that manifest (documented in snapshot.h).
  EXPECT_TRUE(b_->store->Get(id).ok());
  auto fresh = NewReplica();
  EXPECT_EQ(fresh->store->Get(id).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(a_->store->Delete(id).code(), absl::StatusCode::kNotFound);
  // The name is free again.
  EXPECT_FALSE(Create(*b_, "b", "crm").empty());
}

TEST_F(RedisSnapshotBackingTest, PinnedSnapshotIsNotDeleted) {
  const std::string id = Create(*a_, "a", "crm");
  ASSERT_TRUE(a_->store->Pin(id).ok());
  EXPECT_EQ(a_->store->Delete(id).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(b_->store->GetByName("crm").ok());
  a_->store->Unpin(id);
  EXPECT_TRUE(a_->store->Delete(id).ok());
}

// A run open on another replica pins the snapshot through its lease in
// the store (redis_run_directory.h): refused on every replica while the
// lease is live, deleted once it lapsed.
TEST_F(RedisSnapshotBackingTest, SnapshotPinnedByARunElsewhereIsNotDeleted) {
  const std::string id = Create(*a_, "a", "crm");
  const std::string pins = redis_layout::SnapshotPinsKey("toolgate:", id);
  // The run itself, as the run directory stores it (a lease whose run is
  // gone pins nothing: RunsThatAreGoneNoLongerPinTheSnapshot).
  ASSERT_EQ(redis_->Cli({"HSET",
                         redis_layout::RunKey("toolgate:", "run_elsewhere"),
                         "tok", "x"}),
            "1");
  ASSERT_EQ(redis_->Cli({"ZADD", pins, "99999999999999", "run_elsewhere"}),
            "1");
  absl::Status refused = b_->store->Delete(id);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("pinned by 1 open run"), std::string::npos)
      << refused;
  EXPECT_TRUE(a_->store->GetByName("crm").ok());
  ASSERT_EQ(redis_->Cli({"ZADD", pins, "1", "run_elsewhere"}), "0");
  EXPECT_TRUE(b_->store->Delete(id).ok());
  EXPECT_EQ(redis_->Cli({"EXISTS", pins}), "0");
}

// A run that expired without CloseRun leaves its lease up to a quarter of
// its idle TTL past its hash; the memory store sweeps expired runs before
// a delete (Engine::DeleteSnapshot), so no such run may refuse it here
// either. Only runs still open count, and are counted.
TEST_F(RedisSnapshotBackingTest, RunsThatAreGoneNoLongerPinTheSnapshot) {
  const std::string id = Create(*a_, "a", "crm");
  const std::string pins = redis_layout::SnapshotPinsKey("toolgate:", id);
  const std::string open_run = "run_" + std::string(32, 'a');
  ASSERT_EQ(redis_->Cli({"HSET", redis_layout::RunKey("toolgate:", open_run),
                         "tok", "x"}),
            "1");
  ASSERT_EQ(redis_->Cli({"ZADD", pins, "99999999999999", open_run,
                         "99999999999999", "run_expired_1", "99999999999999",
                         "run_expired_2"}),
            "3");
  absl::Status refused = b_->store->Delete(id);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("pinned by 1 open run"), std::string::npos)
      << refused;
  EXPECT_EQ(redis_->Cli({"ZCARD", pins}), "1");
  ASSERT_EQ(redis_->Cli({"DEL", redis_layout::RunKey("toolgate:", open_run)}),
            "1");
  EXPECT_TRUE(b_->store->Delete(id).ok());
  EXPECT_EQ(redis_->Cli({"EXISTS", pins}), "0");
  EXPECT_TRUE(absl::IsNotFound(a_->store->GetByName("crm").status()));
}

TEST_F(RedisSnapshotBackingTest, FrozenStoreNeverAnswersFromACopy) {
  Create(*a_, "a", "crm");
  ASSERT_TRUE(b_->store->GetByName("crm").ok());
  redis_->Pause();
  auto by_name = b_->store->GetByName("crm");
  auto created = b_->store->Create(Manifest("b"), ManifestFormat::kAuto, "x");
  redis_->Resume();
  EXPECT_TRUE(by_name.status().code() == absl::StatusCode::kUnavailable ||
              by_name.status().code() == absl::StatusCode::kDeadlineExceeded)
      << by_name.status();
  EXPECT_TRUE(created.status().code() == absl::StatusCode::kUnavailable ||
              created.status().code() == absl::StatusCode::kDeadlineExceeded)
      << created.status();
  EXPECT_TRUE(b_->store->GetByName("crm").ok());
}

TEST_F(RedisSnapshotBackingTest, TamperedManifestIsNotServed) {
  const std::string id = Create(*a_, "a", "crm");
  ASSERT_EQ(redis_->Cli({"HSET", redis_layout::SnapshotKey("toolgate:", id),
                         "manifest", Manifest("evil")}),
            "0");
  auto fresh = NewReplica();
  auto got = fresh->store->Get(id);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kUnavailable)
      << got.status();
  EXPECT_EQ(fresh->store->GetByName("crm").status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(fresh->store->size(), 0u);
  // A name binding of the wrong shape is the store's fault too.
  ASSERT_EQ(redis_->Cli({"HSET", redis_layout::SnapshotNamesKey("toolgate:"),
                         "crm", "garbage"}),
            "0");
  EXPECT_EQ(fresh->store->GetByName("crm").status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(a_->store->Create(Manifest("a"), ManifestFormat::kAuto, "crm")
                .status()
                .code(),
            absl::StatusCode::kUnavailable);
}

TEST_F(RedisSnapshotBackingTest, FlushedStoreHasNoNames) {
  Create(*a_, "a", "crm");
  ASSERT_TRUE(b_->store->GetByName("crm").ok());
  ASSERT_EQ(redis_->Cli({"FLUSHALL"}), "OK");
  EXPECT_EQ(a_->store->GetByName("crm").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(b_->store->GetByName("crm").status().code(),
            absl::StatusCode::kNotFound);
  // Created again, it is stored again.
  Create(*a_, "a", "crm");
  EXPECT_TRUE(b_->store->GetByName("crm").ok());
}

TEST_F(RedisSnapshotBackingTest, ListsEveryReplicasSnapshotsInIdOrder) {
  std::vector<std::string> ids = {Create(*a_, "a", ""), Create(*a_, "b", ""),
                                  Create(*b_, "c", "")};
  std::sort(ids.begin(), ids.end());
  auto all = b_->store->ListAfter("", 10);
  ASSERT_EQ(all.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(all[i]->id(), ids[i]);
  auto page = a_->store->ListAfter(ids[0], 1);
  ASSERT_EQ(page.size(), 1u);
  EXPECT_EQ(page[0]->id(), ids[1]);
}

TEST_F(RedisSnapshotBackingTest, EvictedLocallyIsFetchedAgain) {
  SnapshotStoreOptions options;
  options.max_snapshots = 1;
  auto small = NewReplica(options);
  const std::string first = Create(*small, "a", "kept");
  Create(*small, "b", "");
  EXPECT_EQ(small->store->size(), 1u);
  auto again = small->store->GetByName("kept");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)->id(), first);
}

TEST_F(RedisSnapshotBackingTest, ConcurrentFirstGetsShareOneCompile) {
  const std::string id = Create(*a_, "a", "crm");
  ASSERT_EQ(redis_->Cli({"CONFIG", "RESETSTAT"}), "OK");
  std::vector<std::shared_ptr<const Snapshot>> got(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < got.size(); ++i) {
    threads.emplace_back([&, i] {
      auto s = b_->store->Get(id);
      if (s.ok()) got[i] = *s;
    });
  }
  for (std::thread& t : threads) t.join();
  for (const auto& s : got) {
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s, got[0]);
  }
  // One fetch (HMGET), so one compile: the others waited for it.
  EXPECT_TRUE(absl::StrContains(redis_->Cli({"INFO", "commandstats"}),
                                "cmdstat_hmget:calls=1,"));
}

}  // namespace
}  // namespace state
}  // namespace toolgate
