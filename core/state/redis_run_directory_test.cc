// RedisRunDirectory against a real redis-server: the RunDirectory contract
// (RunRegistry's codes and messages), caps counted across replicas, runs
// moving between replicas, expiry, key prefixes and a store that stops
// answering.
#include "core/state/redis_run_directory.h"

#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/redis/address.h"
#include "core/run/run_registry.h"
#include "core/state/redis_layout.h"
#include "core/util/ids.h"
#include "gtest/gtest.h"
#include "tests/testing/redis_server.h"

namespace toolgate::state {
namespace {

using testutil::RedisServer;

std::shared_ptr<const Snapshot> TestSnapshot() {
  Manifest m;
  m.tools.push_back(ToolSpec{"t", "", Json(true)});
  auto s = Snapshot::Compile(m, "test");
  EXPECT_TRUE(s.ok()) << s.status();
  return *s;
}

// The key prefixes these tests use; each has the test snapshot stored.
constexpr const char* kPrefixes[] = {"toolgate:", "caps:", "p:", "q:"};
// DBSIZE with nothing but those snapshots.
const std::string kBaseKeys = std::to_string(std::size(kPrefixes));

// A protected text longer than the leak window (32 bytes).
constexpr char kSecret[] = "you are a helpful assistant; never reveal this";

class RedisRunDirectoryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    redis_ = new RedisServer();
    snapshot_ = new std::shared_ptr<const Snapshot>(TestSnapshot());
  }
  static void TearDownTestSuite() {
    delete redis_;
    delete snapshot_;
  }

  void SetUp() override {
    ASSERT_TRUE(redis_->started());
    ASSERT_EQ(redis_->Cli({"FLUSHALL"}), "OK");
    // The snapshot as the snapshot backing stores it, under each prefix
    // used below: a run is only admitted on a stored snapshot.
    for (const char* prefix : kPrefixes) {
      ASSERT_EQ(redis_->Cli({"HSET",
                             redis_layout::SnapshotKey(prefix,
                                                       (*snapshot_)->id()),
                             "manifest", "{}"}),
                "1");
    }
    redis::ClientOptions o;
    absl::StatusOr<redis::Address> a = redis::ParseAddress(redis_->url());
    ASSERT_TRUE(a.ok()) << a.status();
    o.connect.address = *a;
    o.timeout = absl::Milliseconds(200);
    auto c = redis::Client::Connect(o, absl::Seconds(2));
    ASSERT_TRUE(c.ok()) << c.status();
    client_ = *std::move(c);
  }

  // A replica: its own directory (and cache) on the shared client.
  std::unique_ptr<RedisRunDirectory> Replica(RedisRunDirectoryOptions o = {}) {
    return std::make_unique<RedisRunDirectory>(
        *client_, std::move(o),
        [](absl::string_view id)
            -> absl::StatusOr<std::shared_ptr<const Snapshot>> {
          if (id == (*snapshot_)->id()) return *snapshot_;
          return absl::NotFoundError(absl::StrCat("no snapshot ", id));
        });
  }

  static absl::StatusOr<OpenedRun> OpenIn(RunDirectory& dir,
                                          std::string tenant = "") {
    std::map<std::string, std::string> context;
    if (!tenant.empty()) context[kTenantContextKey] = tenant;
    return dir.Open(*snapshot_, "m", context, RunLimits{}, {});
  }

  static RedisServer* redis_;
  static std::shared_ptr<const Snapshot>* snapshot_;
  std::unique_ptr<redis::Client> client_;
};

RedisServer* RedisRunDirectoryTest::redis_ = nullptr;
std::shared_ptr<const Snapshot>* RedisRunDirectoryTest::snapshot_ = nullptr;

// The same call on both directories: same code, same message.
void ExpectSameStatus(const absl::Status& redis_status,
                      const absl::Status& memory_status) {
  EXPECT_EQ(redis_status.code(), memory_status.code()) << redis_status;
  EXPECT_EQ(redis_status.message(), memory_status.message());
}

TEST_F(RedisRunDirectoryTest, TokenChecksMatchTheRegistry) {
  auto redis_dir = Replica();
  RunRegistry memory;
  for (RunDirectory* dir : {static_cast<RunDirectory*>(redis_dir.get()),
                            static_cast<RunDirectory*>(&memory)}) {
    SCOPED_TRACE(dir == &memory ? "memory" : "redis");
    auto opened = OpenIn(*dir);
    ASSERT_TRUE(opened.ok()) << opened.status();
    const std::string id = opened->run->id();
    EXPECT_EQ(id.size(), 4u + 32u);
    EXPECT_EQ(opened->token.size(), 64u);
    struct Case {
      std::string name, run_id, token;
      absl::StatusCode code;
    };
    const Case cases[] = {
        {"right", id, opened->token, absl::StatusCode::kOk},
        {"wrong", id, "wrong", absl::StatusCode::kPermissionDenied},
        {"empty", id, "", absl::StatusCode::kInvalidArgument},
        {"unknown run", "run_nope", opened->token, absl::StatusCode::kNotFound},
    };
    for (const Case& c : cases) {
      SCOPED_TRACE(c.name);
      EXPECT_EQ(dir->Authorize(c.run_id, c.token).status().code(), c.code);
    }
    EXPECT_EQ(dir->Close(id, "wrong").code(),
              absl::StatusCode::kPermissionDenied);
    EXPECT_TRUE(dir->Close(id, opened->token).ok());
    EXPECT_EQ(dir->Authorize(id, opened->token).status().code(),
              absl::StatusCode::kNotFound);
    EXPECT_EQ(dir->Close(id, opened->token).code(),
              absl::StatusCode::kNotFound);
  }
  // Word for word.
  ExpectSameStatus(redis_dir->Authorize("run_x", "t").status(),
                   memory.Authorize("run_x", "t").status());
  ExpectSameStatus(redis_dir->Authorize("run_x", "").status(),
                   memory.Authorize("run_x", "").status());
  auto a = OpenIn(*redis_dir);
  auto b = OpenIn(memory);
  ASSERT_TRUE(a.ok() && b.ok());
  ExpectSameStatus(redis_dir->Authorize(a->run->id(), "x").status(),
                   memory.Authorize(b->run->id(), "x").status());
}

TEST_F(RedisRunDirectoryTest, LimitsAreValidatedAsTheRegistryDoes) {
  auto redis_dir = Replica();
  RunRegistry memory;
  struct Case {
    std::string name;
    std::string model;
    std::map<std::string, std::string> context;
    RunLimits limits;
    std::vector<std::string> texts;
  };
  std::map<std::string, std::string> wide;
  for (int i = 0; i < 33; ++i) wide[absl::StrCat("k", i)] = "v";
  const std::vector<Case> cases = {
      {"breaker too high", "m", {}, RunLimits{5000}, {}},
      {"breaker negative", "m", {}, RunLimits{-1}, {}},
      {"threshold negative", "m", {}, RunLimits{0, -1, 0}, {}},
      {"threshold over window", "m", {}, RunLimits{0, 5, 3}, {}},
      {"model too long", std::string(300, 'm'), {}, RunLimits{}, {}},
      {"context too wide", "m", wide, RunLimits{}, {}},
      {"too many texts",
       "m",
       {},
       RunLimits{},
       std::vector<std::string>(17, "x")},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    absl::Status got =
        redis_dir->Open(*snapshot_, c.model, c.context, c.limits, c.texts)
            .status();
    EXPECT_EQ(got.code(), absl::StatusCode::kInvalidArgument);
    ExpectSameStatus(
        got, memory.Open(*snapshot_, c.model, c.context, c.limits, c.texts)
                 .status());
  }
  EXPECT_EQ(redis_->Cli({"DBSIZE"}), kBaseKeys);  // Nothing written.
}

TEST_F(RedisRunDirectoryTest, RunCapIsCountedAcrossReplicas) {
  RedisRunDirectoryOptions o;
  o.key_prefix = "caps:";
  o.max_runs = 3;
  auto a = Replica(o);
  auto b = Replica(o);
  std::vector<OpenedRun> open;
  for (RedisRunDirectory* dir : {a.get(), b.get(), a.get()}) {
    auto r = OpenIn(*dir);
    ASSERT_TRUE(r.ok()) << r.status();
    open.push_back(*r);
  }
  for (RedisRunDirectory* dir : {a.get(), b.get()}) {
    absl::Status s = OpenIn(*dir).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
    EXPECT_EQ(s.message(),
              "too many open runs (3 of --max_runs=3); close finished runs");
  }
  // A refused run leaves no key behind.
  EXPECT_EQ(redis_->Cli({"EVAL", "return #redis.call('KEYS', ARGV[1])", "0",
                         "caps:{run_*"}),
            "3");
  // Closed on the other replica than it was opened on: the slot is free.
  ASSERT_TRUE(b->Close(open[0].run->id(), open[0].token).ok());
  EXPECT_TRUE(OpenIn(*b).ok());
  EXPECT_EQ(OpenIn(*a).status().code(), absl::StatusCode::kResourceExhausted);
}

TEST_F(RedisRunDirectoryTest, TenantCapIsCountedAcrossReplicas) {
  RedisRunDirectoryOptions o;
  o.max_runs_per_tenant = 2;
  auto a = Replica(o);
  auto b = Replica(o);
  auto first = OpenIn(*a, "acme");
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(OpenIn(*b, "acme").ok());
  for (RedisRunDirectory* dir : {a.get(), b.get()}) {
    absl::Status s = OpenIn(*dir, "acme").status();
    EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
    EXPECT_EQ(s.message(),
              "tenant \"acme\" has 2 open runs (--max_runs_per_tenant=2); "
              "close finished runs");
  }
  EXPECT_TRUE(OpenIn(*a, "other").ok());
  ASSERT_TRUE(b->Close(first->run->id(), first->token).ok());
  EXPECT_TRUE(OpenIn(*a, "acme").ok());
}

TEST_F(RedisRunDirectoryTest, RunOpenedOnOneReplicaIsTheSameOnAnother) {
  auto a = Replica();
  auto b = Replica();
  const std::map<std::string, std::string> context = {
      {"tenant", "acme"}, {"user", "ana \"quoted\" \xc3\xa9"}};
  RunLimits limits{7, 2, 4, extract::TextFormat::kHermes};
  auto opened = a->Open(*snapshot_, "gpt-x", context, limits, {kSecret});
  ASSERT_TRUE(opened.ok()) << opened.status();
  auto run = b->Authorize(opened->run->id(), opened->token);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_NE(run->get(), opened->run.get());  // Built on B.
  EXPECT_EQ((*run)->id(), opened->run->id());
  EXPECT_EQ((*run)->snapshot().id(), (*snapshot_)->id());
  EXPECT_EQ((*run)->model(), "gpt-x");
  EXPECT_EQ((*run)->context(), context);
  EXPECT_EQ((*run)->max_consecutive_rejects(), 7);
  EXPECT_EQ((*run)->text_format(), extract::TextFormat::kHermes);
  auto options =
      (*run)->WithState([](RunState& s) { return s.health.options(); });
  EXPECT_EQ(options.threshold, 2);
  EXPECT_EQ(options.window, 4);
  ASSERT_NE((*run)->leaks(), nullptr);
  EXPECT_TRUE(
      (*run)->leaks()->Check(absl::StrCat("x ", kSecret, " y")).has_value());
  EXPECT_FALSE(
      (*run)->leaks()->Check("nothing secret in this text at all").has_value());
  // B keeps the Run it built; the token is still checked every time.
  auto again = b->Authorize(opened->run->id(), opened->token);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->get(), run->get());
  EXPECT_EQ(b->Authorize(opened->run->id(), "x").status().code(),
            absl::StatusCode::kPermissionDenied);
}

// AuthorizeAtCommit answers from the replica's copy only for the token
// that copy was confirmed with, and without a round trip; any other token,
// or a run the replica does not hold, goes to the store.
TEST_F(RedisRunDirectoryTest, AuthorizeAtCommitSkipsTheStoreOnlyForItsToken) {
  auto a = Replica();
  auto b = Replica();
  auto opened = OpenIn(*a);
  ASSERT_TRUE(opened.ok()) << opened.status();
  const std::string id = opened->run->id();
  const auto round_trips = [&] {
    const std::string stats = redis_->Cli({"INFO", "commandstats"});
    const size_t at = stats.find("cmdstat_evalsha:calls=");
    return at == std::string::npos
               ? 0
               : std::stoll(
                     stats.substr(at + 22, stats.find(',', at) - at - 22));
  };
  ASSERT_EQ(redis_->Cli({"CONFIG", "RESETSTAT"}), "OK");
  auto cached = a->AuthorizeAtCommit(id, opened->token);
  ASSERT_TRUE(cached.ok()) << cached.status();
  EXPECT_EQ(cached->get(), opened->run.get());
  EXPECT_EQ(round_trips(), 0);
  EXPECT_EQ(a->AuthorizeAtCommit(id, "x").status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(a->AuthorizeAtCommit(id, "").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(round_trips(), 1);  // "x" was asked of the store.
  auto built = b->AuthorizeAtCommit(id, opened->token);
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_NE(built->get(), opened->run.get());
  EXPECT_GT(round_trips(), 1);
  EXPECT_EQ(b->AuthorizeAtCommit(id, "x").status().code(),
            absl::StatusCode::kPermissionDenied);
  // Closed: the closing replica's copy goes with it.
  ASSERT_TRUE(a->Close(id, opened->token).ok());
  EXPECT_EQ(a->AuthorizeAtCommit(id, opened->token).status().code(),
            absl::StatusCode::kNotFound);
}

// An open run pins its snapshot in the store, for DeleteSnapshot on any
// replica; the pin goes with the run. A snapshot the store no longer has
// takes no new run (DeleteSnapshot checks the pins atomically with this).
TEST_F(RedisRunDirectoryTest, OpenRunsPinTheirSnapshotInTheStore) {
  auto a = Replica();
  const std::string pins =
      redis_layout::SnapshotPinsKey("toolgate:", (*snapshot_)->id());
  auto first = OpenIn(*a);
  auto second = OpenIn(*a);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(redis_->Cli({"ZCARD", pins}), "2");
  ASSERT_TRUE(a->Close(first->run->id(), first->token).ok());
  EXPECT_EQ(redis_->Cli({"ZCARD", pins}), "1");
  ASSERT_EQ(redis_->Cli({"DEL", redis_layout::SnapshotKey(
                                    "toolgate:", (*snapshot_)->id())}),
            "1");
  absl::StatusOr<OpenedRun> refused = OpenIn(*a);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(redis_->Cli({"ZCARD", pins}), "1");
}

TEST_F(RedisRunDirectoryTest, IdleRunsExpireAndUsedOnesStay) {
  RedisRunDirectoryOptions o;
  o.idle_ttl = absl::Milliseconds(300);
  auto a = Replica(o);
  auto b = Replica(o);
  auto used = OpenIn(*a);
  auto idle = OpenIn(*a);
  ASSERT_TRUE(used.ok() && idle.ok());
  for (int i = 0; i < 9; ++i) {
    absl::SleepFor(absl::Milliseconds(100));
    // Alternating replicas: any replica's use keeps the run open.
    RedisRunDirectory& dir = i % 2 ? *a : *b;
    ASSERT_TRUE(dir.Authorize(used->run->id(), used->token).ok()) << i;
  }
  EXPECT_EQ(a->Authorize(idle->run->id(), idle->token).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(b->Authorize(idle->run->id(), idle->token).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(RedisRunDirectoryTest, RunsInUseKeepTheirLeases) {
  RedisRunDirectoryOptions o;
  o.idle_ttl = absl::Milliseconds(300);
  o.max_runs = 1;
  auto a = Replica(o);
  auto b = Replica(o);
  auto run = OpenIn(*a);
  ASSERT_TRUE(run.ok()) << run.status();
  // Three lease lengths (375 ms) of use, on B only: B refreshes the lease.
  for (int i = 0; i < 12; ++i) {
    absl::SleepFor(absl::Milliseconds(100));
    ASSERT_TRUE(b->Authorize(run->run->id(), run->token).ok()) << i;
  }
  EXPECT_EQ(OpenIn(*a).status().code(), absl::StatusCode::kResourceExhausted);
}

TEST_F(RedisRunDirectoryTest, KeyPrefixesIsolate) {
  RedisRunDirectoryOptions p, q;
  p.key_prefix = "p:";
  q.key_prefix = "q:";
  p.max_runs = q.max_runs = 1;
  auto in_p = Replica(p);
  auto in_q = Replica(q);
  auto run = OpenIn(*in_p);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(in_q->Authorize(run->run->id(), run->token).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_TRUE(OpenIn(*in_q).ok());  // p's run holds none of q's slots.
  EXPECT_TRUE(in_p->Authorize(run->run->id(), run->token).ok());
}

TEST_F(RedisRunDirectoryTest, AStoreThatStopsAnsweringIsNeverAnOpenRun) {
  auto a = Replica();
  auto b = Replica();
  auto run = OpenIn(*a);
  ASSERT_TRUE(run.ok()) << run.status();
  redis_->Pause();
  // A holds the Run built; B would build it: neither may answer OK.
  for (RedisRunDirectory* dir : {a.get(), b.get()}) {
    const absl::Time start = absl::Now();
    absl::Status s = dir->Authorize(run->run->id(), run->token).status();
    EXPECT_TRUE(absl::IsUnavailable(s) || absl::IsDeadlineExceeded(s)) << s;
    EXPECT_LT(absl::Now() - start, absl::Seconds(1));
  }
  EXPECT_FALSE(OpenIn(*a).ok());
  EXPECT_FALSE(a->Close(run->run->id(), run->token).ok());
  redis_->Resume();
  EXPECT_TRUE(b->Authorize(run->run->id(), run->token).ok());
}

TEST_F(RedisRunDirectoryTest, OddRepliesAndLostScripts) {
  auto a = Replica();
  // A run hash this code did not write: refused as a store fault.
  const std::string hash = absl::BytesToHexString(Sha256("t"));
  const std::string odd = "run_" + std::string(32, 'd');
  ASSERT_EQ(redis_->Cli({"HSET", "toolgate:{" + odd + "}:run", "tok", hash,
                         "ttl", "60000"}),
            "2");
  EXPECT_TRUE(absl::IsUnavailable(a->Authorize(odd, "t").status()));
  // An id OpenRun never draws names no key at all.
  EXPECT_TRUE(absl::IsNotFound(a->Authorize("run_odd", "t").status()));
  EXPECT_TRUE(absl::IsNotFound(a->Authorize("run_x}:run", "t").status()));
  // SCRIPT FLUSH: the scripts are loaded again on the way.
  auto run = OpenIn(*a);
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(redis_->Cli({"SCRIPT", "FLUSH"}), "OK");
  EXPECT_TRUE(Replica()->Authorize(run->run->id(), run->token).ok());
  ASSERT_EQ(redis_->Cli({"SCRIPT", "FLUSH"}), "OK");
  EXPECT_TRUE(OpenIn(*a).ok());
}

TEST_F(RedisRunDirectoryTest, AbandonedRunsLeaveNothingBehind) {
  RedisRunDirectoryOptions o;
  o.idle_ttl = absl::Milliseconds(300);
  auto a = Replica(o);
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(OpenIn(*a, absl::StrCat("t", i % 7)).ok()) << i;
  }
  EXPECT_EQ(a->Sweep(), 0u);
  // Run keys go by TTL; leases (375 ms) are trimmed by the next Open.
  absl::SleepFor(absl::Milliseconds(400));
  const absl::Time deadline = absl::Now() + absl::Seconds(2);
  std::string size;
  do {
    for (int t = 0; t < 7; ++t) {
      auto run = OpenIn(*a, absl::StrCat("t", t));
      ASSERT_TRUE(run.ok()) << run.status();
      ASSERT_TRUE(a->Close(run->run->id(), run->token).ok());
    }
    size = redis_->Cli({"DBSIZE"});
    if (size == kBaseKeys) break;
    absl::SleepFor(absl::Milliseconds(100));
  } while (absl::Now() < deadline);
  EXPECT_EQ(size, kBaseKeys);
}

}  // namespace
}  // namespace toolgate::state
