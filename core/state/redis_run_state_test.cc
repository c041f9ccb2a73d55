// The Redis run state store against a real redis-server, beyond the
// contract every store keeps (run_state_contract_test): how many round
// trips a decision costs, and what each failure of the store does. None
// may turn into a decision made without the state.
#include <map>
#include <memory>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/approval/approval_store.h"
#include "core/redis/client.h"
#include "core/run/run_registry.h"
#include "core/state/redis_layout.h"
#include "core/state/redis_run_state.h"
#include "core/util/ids.h"
#include "gtest/gtest.h"
#include "tests/testing/redis_server.h"

namespace toolgate {
namespace state {
namespace {

using testutil::RedisServer;
using testutil::RedisServerOptions;

std::shared_ptr<const Snapshot> TestSnapshot() {
  Manifest m;
  m.tools.push_back(ToolSpec{"t", "", Json(true)});
  return *Snapshot::Compile(m, "test");
}

constexpr char kToken[] = "redis-run-state-token";

CallPlan Plan(bool allowable, int budget = 0) {
  CallPlan plan;
  plan.run_token = kToken;
  plan.allowable = allowable;
  plan.misformat = !allowable;
  if (budget > 0) {
    BudgetCharge c;
    c.tool = "t";
    c.tool_limit = budget;
    plan.charges.push_back(c);
  }
  return plan;
}

class RedisRunStateTest : public testing::Test {
 protected:
  void Start(RedisServerOptions options = {}) {
    redis_ = std::make_unique<RedisServer>(std::move(options));
    ASSERT_TRUE(redis_->started());
    redis::ClientOptions o;
    o.connect.address = *redis::ParseAddress(redis_->url());
    o.timeout = absl::Milliseconds(200);
    auto client = redis::Client::Connect(o, absl::Seconds(5));
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
    store_ = std::make_unique<RedisRunState>(*client_, RedisRunStateOptions());
    auto opened = runs_.Open(TestSnapshot(), "m", {}, RunLimits{3, 2, 2});
    ASSERT_TRUE(opened.ok());
    run_ = opened->run;
    Attach();
  }

  void Attach() {
    ASSERT_EQ(redis_->Cli({"HSET", redis_layout::RunKey("toolgate:", run_->id()),
                           "tok", absl::BytesToHexString(Sha256(kToken)), "maxrej", "3", "ks_thr", "2", "ks_win",
                           "2", "ttl", "60000", "model", "m", "ctx", "{}"}),
              "7");
  }

  // cmdstat_<name>'s calls since the last CONFIG RESETSTAT.
  int64_t Calls(const std::string& command) {
    const std::string info = redis_->Cli({"INFO", "commandstats"});
    for (absl::string_view line : absl::StrSplit(info, '\n')) {
      const std::string head = absl::StrCat("cmdstat_", command, ":calls=");
      if (!absl::StartsWith(line, head)) continue;
      int64_t n = 0;
      line.remove_prefix(head.size());
      if (absl::SimpleAtoi(line.substr(0, line.find(',')), &n)) return n;
    }
    return 0;
  }

  std::unique_ptr<RedisServer> redis_;
  std::unique_ptr<redis::Client> client_;
  std::unique_ptr<RedisRunState> store_;
  RunRegistry runs_;
  std::shared_ptr<toolgate::Run> run_;
};

TEST_F(RedisRunStateTest, OneRoundTripPerDecision) {
  Start();
  // Loaded once, so the count below is the steady state.
  ASSERT_TRUE(store_->CommitCall(*run_, Plan(true)).ok());
  ASSERT_TRUE(store_->RecordOutput(*run_, kToken, output::OutputVerdict::kValid).ok());
  ASSERT_TRUE(store_->Reset(*run_).ok());
  redis_->Cli({"CONFIG", "RESETSTAT"});
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(store_->CommitCall(*run_, Plan(i % 3 != 0, 1000)).ok());
    ASSERT_TRUE(
        store_->RecordOutput(*run_, kToken, output::OutputVerdict::kValid).ok());
    if (i % 10 == 9) {
      ASSERT_TRUE(store_->Reset(*run_).ok());
    }
  }
  EXPECT_EQ(Calls("evalsha"), 210);
  EXPECT_EQ(Calls("eval"), 0);
  EXPECT_EQ(Calls("script|load"), 0);
}

TEST_F(RedisRunStateTest, LostRunIsNotFoundNeverAFreshOne) {
  Start();
  ASSERT_TRUE(store_->CommitCall(*run_, Plan(false)).ok());  // attempt 1
  redis_->Cli({"FLUSHALL"});
  EXPECT_EQ(store_->CommitCall(*run_, Plan(true)).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(
      store_->RecordOutput(*run_, kToken, output::OutputVerdict::kValid).status().code(),
      absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->Reset(*run_).code(), absl::StatusCode::kNotFound);
}

TEST_F(RedisRunStateTest, ScriptsComeBackAfterTheStoreForgetsThem) {
  Start();
  ASSERT_TRUE(store_->CommitCall(*run_, Plan(true)).ok());
  redis_->Cli({"SCRIPT", "FLUSH"});
  absl::StatusOr<CallOutcome> out = store_->CommitCall(*run_, Plan(true));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->decision, Decision::kAllow);
}

TEST_F(RedisRunStateTest, FrozenStoreIsUnavailableWithinTheTimeout) {
  Start();
  ASSERT_TRUE(store_->CommitCall(*run_, Plan(true)).ok());
  redis_->Pause();
  const absl::Time start = absl::Now();
  absl::StatusOr<CallOutcome> out = store_->CommitCall(*run_, Plan(true, 5));
  const absl::Duration took = absl::Now() - start;
  redis_->Resume();
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(out.status().code() == absl::StatusCode::kUnavailable ||
              out.status().code() == absl::StatusCode::kDeadlineExceeded)
      << out.status();
  EXPECT_LT(took, absl::Seconds(1));
  EXPECT_TRUE(store_->CommitCall(*run_, Plan(true)).ok());
}

TEST_F(RedisRunStateTest, OutOfMemoryRefusesAndWritesNothing) {
  RedisServerOptions options;
  options.extra_args = {"--maxmemory", "2mb", "--maxmemory-policy",
                        "noeviction"};
  Start(options);
  // Fill the store past its limit (in pieces: a big value in flight
  // counts as used memory and is refused itself).
  const std::string piece(32 * 1024, 'x');
  int filled = 0;
  while (filled < 200 &&
         client_->Run("fill", {"SET", absl::StrCat("fill", filled), piece})
             .ok()) {
    ++filled;
  }
  absl::StatusOr<CallOutcome> out = store_->CommitCall(*run_, Plan(false));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(out.status().message().find("state store"), std::string::npos);
  // Refused before it ran: the reject was not counted.
  EXPECT_EQ(redis_->Cli({"HGET", redis_layout::RunKey("toolgate:", run_->id()),
                         "rej"}),
            "");
  redis_->Cli({"FLUSHDB"});
  Attach();
  EXPECT_EQ(store_->CommitCall(*run_, Plan(false))->loop.attempt, 1);
}

TEST_F(RedisRunStateTest, NewApprovalTakesThreeRoundTripsItsRetryOne) {
  Start();
  CallPlan ask = Plan(true);
  ask.approval = CallPlan::Approval::kRequest;
  ask.tool = "t";
  ask.arguments_json = "{}";
  CallPlan warm = ask;  // Scripts loaded once; the counts are steady state.
  warm.arguments_json = R"({"warm":1})";
  ASSERT_TRUE(store_->CommitCall(*run_, warm).ok());
  redis_->Cli({"CONFIG", "RESETSTAT"});
  const std::string id = store_->CommitCall(*run_, ask)->approval_id;
  EXPECT_EQ(Calls("evalsha"), 3);
  EXPECT_EQ(store_->CommitCall(*run_, ask)->approval_id, id);
  EXPECT_EQ(Calls("evalsha"), 4);
}

// A run resolved from a replica's copy (RunDirectory::AuthorizeAtCommit)
// is authorized by its commit: a wrong token changes nothing.
TEST_F(RedisRunStateTest, TheCommitChecksTheToken) {
  Start();
  const std::string key = redis_layout::RunKey("toolgate:", run_->id());
  redis_->Cli({"HSET", key, "tok", absl::BytesToHexString(Sha256("secret"))});
  CallPlan plan = Plan(false);
  plan.run_token = "wrong";
  EXPECT_EQ(store_->CommitCall(*run_, plan).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(store_->RecordOutput(*run_, "wrong", output::OutputVerdict::kInvalid)
                .status()
                .code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(redis_->Cli({"HGET", key, "rej"}), "");
  EXPECT_EQ(redis_->Cli({"HGET", key, "ks_inv"}), "");
  plan.run_token = "secret";
  EXPECT_EQ(store_->CommitCall(*run_, plan)->loop.attempt, 1);
}

// No path commits without a token: the cached run's check is here.
TEST_F(RedisRunStateTest, NoTokenIsRefusedNotSkipped) {
  Start();
  CallPlan plan = Plan(true);
  plan.run_token = "";
  EXPECT_EQ(store_->CommitCall(*run_, plan).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->RecordOutput(*run_, "", output::OutputVerdict::kValid)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

// Approvals dropped from the store give their bytes back at the next
// admission, however many (Lua's unpack takes at most ~8000 values).
TEST_F(RedisRunStateTest, DroppedApprovalsGiveTheirBytesBack) {
  Start();
  RedisRunStateOptions options;
  options.max_bytes = 1000;
  options.max_approvals = 100000;
  store_ = std::make_unique<RedisRunState>(*client_, options);
  std::vector<std::string> all = {"ZADD", "toolgate:{c}:apr:all"};
  std::vector<std::string> bytes = {"HSET", "toolgate:{c}:apr:bytes", "total",
                                    "2500000"};
  for (int i = 0; i < 10000; ++i) {
    const std::string id = absl::StrCat("apr_gone", i);
    all.insert(all.end(), {"1", id});  // Dropped long ago.
    bytes.insert(bytes.end(), {id, "250"});
  }
  ASSERT_TRUE(client_->Run("fill", all).ok());
  ASSERT_TRUE(client_->Run("fill", bytes).ok());
  CallPlan ask = Plan(true);
  ask.approval = CallPlan::Approval::kRequest;
  ask.tool = "t";
  ask.arguments_json = "{}";
  absl::StatusOr<CallOutcome> asked = store_->CommitCall(*run_, ask);
  ASSERT_TRUE(asked.ok()) << asked.status();
  ASSERT_FALSE(asked->approval_id.empty());
  Approval held;
  held.run_id = run_->id();
  held.tool = "t";
  held.arguments_json = "{}";
  held.model = "m";
  EXPECT_EQ(redis_->Cli({"HGET", "toolgate:{c}:apr:bytes", "total"}),
            absl::StrCat(ApprovalBytes(held)));
  EXPECT_EQ(redis_->Cli({"HLEN", "toolgate:{c}:apr:bytes"}), "2");
  EXPECT_EQ(redis_->Cli({"ZCARD", "toolgate:{c}:apr:all"}), "1");
  // And the next one does not fit in 1000 bytes.
  ask.arguments_json = R"({"other":1})";
  EXPECT_EQ(store_->CommitCall(*run_, ask).status().code(),
            absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace state
}  // namespace toolgate
