// --max_approval_bytes in the Redis store against a real redis-server:
// what replicas that disagree (another version, another TTL) leave in the
// store must neither break admission nor let approvals go uncounted.
#include <memory>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/approval/approval_store.h"
#include "core/redis/client.h"
#include "core/run/run_registry.h"
#include "core/state/redis_layout.h"
#include "core/state/redis_run_scripts.h"
#include "core/state/redis_run_state.h"
#include "core/util/ids.h"
#include "gtest/gtest.h"
#include "tests/testing/redis_server.h"

namespace toolgate {
namespace state {
namespace {

constexpr char kToken[] = "redis-approval-bytes-token";
constexpr char kAll[] = "toolgate:{c}:apr:all";
constexpr char kBytes[] = "toolgate:{c}:apr:bytes";

std::shared_ptr<const Snapshot> TestSnapshot() {
  Manifest m;
  m.tools.push_back(ToolSpec{"t", "", Json(true)});
  return *Snapshot::Compile(m, "test");
}

// A request for an approval of tool "t" with `n` (one digit) in its
// arguments: every such approval holds the same bytes.
CallPlan Ask(int n) {
  CallPlan plan;
  plan.run_token = kToken;
  plan.allowable = true;
  plan.approval = CallPlan::Approval::kRequest;
  plan.tool = "t";
  plan.arguments_json = absl::StrCat(R"({"n":)", n, "}");
  return plan;
}

class RedisApprovalBytesTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(redis_.started());
    redis::ClientOptions o;
    o.connect.address = *redis::ParseAddress(redis_.url());
    o.timeout = absl::Seconds(2);
    auto client = redis::Client::Connect(o, absl::Seconds(5));
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
    auto opened = runs_.Open(TestSnapshot(), "m", {}, RunLimits{3, 2, 2});
    ASSERT_TRUE(opened.ok());
    run_ = opened->run;
    ASSERT_EQ(redis_.Cli({"HSET", redis_layout::RunKey("toolgate:", run_->id()),
                          "tok", absl::BytesToHexString(Sha256(kToken)),
                          "maxrej", "3", "ks_thr", "2", "ks_win", "2", "ttl",
                          "60000", "model", "m", "ctx", "{}"}),
              "7");
  }

  // The bytes each Ask(n) holds.
  size_t Each() const {
    Approval a;
    a.run_id = run_->id();
    a.tool = "t";
    a.arguments_json = Ask(0).arguments_json;
    a.model = "m";
    return ApprovalBytes(a);
  }

  std::unique_ptr<RedisRunState> Store(absl::Duration ttl, absl::Duration keep,
                                       size_t max_bytes) {
    RedisRunStateOptions options;
    options.approval_ttl = ttl;
    options.keep_after_expiry = keep;
    options.max_bytes = max_bytes;
    return std::make_unique<RedisRunState>(*client_, options);
  }

  testutil::RedisServer redis_;
  std::unique_ptr<redis::Client> client_;
  RunRegistry runs_;
  std::shared_ptr<toolgate::Run> run_;
};

// Approvals a replica of the version before byte counting admitted have
// no bytes: once they are dropped, giving back 0 bytes must not fail the
// admission (Lua's -0 is "-0", which HINCRBY refuses as not an integer).
TEST_F(RedisApprovalBytesTest, DroppedApprovalsWithoutBytesDoNotBreakAdmission) {
  auto store = Store(absl::Seconds(10), absl::Hours(1), 1 << 20);
  ASSERT_EQ(redis_.Cli({"ZADD", kAll, "1", "apr_old1", "2", "apr_old2"}), "2");
  absl::StatusOr<CallOutcome> asked = store->CommitCall(*run_, Ask(1));
  ASSERT_TRUE(asked.ok()) << asked.status();
  EXPECT_FALSE(asked->approval_id.empty());
  EXPECT_EQ(redis_.Cli({"ZCARD", kAll}), "1");
  EXPECT_EQ(redis_.Cli({"HGET", kBytes, "total"}), absl::StrCat(Each()));
}

// An admission the older version made (an entry, no bytes) is undone
// to the end: its index entry goes too, and the total stays.
TEST_F(RedisApprovalBytesTest, UndoingAnAdmissionWithoutBytesCompletes) {
  auto store = Store(absl::Seconds(10), absl::Hours(1), 1 << 20);
  ASSERT_TRUE(store->CommitCall(*run_, Ask(1)).ok());
  ASSERT_EQ(redis_.Cli({"ZADD", kAll, "99999999999999", "apr_old"}), "1");
  const std::string index = "toolgate:{c}:apri:apr_old";
  ASSERT_EQ(redis_.Cli({"SET", index, run_->id()}), "OK");
  absl::StatusOr<redis::Reply> undone = client_->Eval(
      redis_scripts::ApprovalUnadmit(),
      {"toolgate:{c}:apr:tenant:", kAll, index, kBytes}, {"apr_old"});
  ASSERT_TRUE(undone.ok()) << undone.status();
  EXPECT_EQ(undone->type, redis::Reply::Type::kInteger);
  EXPECT_EQ(redis_.Cli({"EXISTS", index}), "0");
  EXPECT_EQ(redis_.Cli({"HGET", kBytes, "total"}), absl::StrCat(Each()));
}

// A replica with a shorter --approval_ttl_seconds (a config change rolling
// out) must not cut short how long the store remembers the approvals
// another replica admitted: they stay counted until each may be dropped.
TEST_F(RedisApprovalBytesTest, ShorterTtlElsewhereKeepsLongerApprovalsCounted) {
  const size_t cap = 2 * Each();
  auto longer = Store(absl::Seconds(30), absl::ZeroDuration(), cap);
  auto shorter = Store(absl::Milliseconds(200), absl::ZeroDuration(), cap);
  ASSERT_TRUE(longer->CommitCall(*run_, Ask(1)).ok());
  ASSERT_TRUE(shorter->CommitCall(*run_, Ask(2)).ok());
  absl::SleepFor(absl::Milliseconds(500));  // Ask(2) has expired.
  absl::StatusOr<CallOutcome> fits = longer->CommitCall(*run_, Ask(3));
  ASSERT_TRUE(fits.ok()) << fits.status();
  EXPECT_EQ(redis_.Cli({"ZCARD", kAll}), "2");
  EXPECT_EQ(redis_.Cli({"HGET", kBytes, "total"}), absl::StrCat(cap));
  EXPECT_EQ(longer->CommitCall(*run_, Ask(4)).status().code(),
            absl::StatusCode::kResourceExhausted);
}

// Nor the run's own indexes of its approvals: the same request made again
// gets the pending approval back, not a second one.
TEST_F(RedisApprovalBytesTest, ShorterTtlElsewhereKeepsTheRunsApprovals) {
  auto longer = Store(absl::Seconds(30), absl::ZeroDuration(), 1 << 20);
  auto shorter = Store(absl::Milliseconds(200), absl::ZeroDuration(), 1 << 20);
  absl::StatusOr<CallOutcome> first = longer->CommitCall(*run_, Ask(1));
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(shorter->CommitCall(*run_, Ask(2)).ok());
  absl::SleepFor(absl::Milliseconds(500));  // Ask(2) has expired.
  absl::StatusOr<CallOutcome> again = longer->CommitCall(*run_, Ask(1));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->approval_id, first->approval_id);
}

// Approvals a replica of the older version dropped from apr:all leave
// their bytes behind; they are given back, not held forever.
TEST_F(RedisApprovalBytesTest, BytesOfApprovalsDroppedElsewhereAreGivenBack) {
  const size_t cap = 2 * Each();
  auto store = Store(absl::Milliseconds(200), absl::Hours(1), cap);
  ASSERT_TRUE(store->CommitCall(*run_, Ask(1)).ok());
  ASSERT_TRUE(store->CommitCall(*run_, Ask(2)).ok());
  absl::SleepFor(absl::Milliseconds(400));
  // What the older version's admission does: trim apr:all, not the bytes.
  ASSERT_EQ(redis_.Cli({"ZREMRANGEBYSCORE", kAll, "-inf", "+inf"}), "2");
  ASSERT_TRUE(store->CommitCall(*run_, Ask(3)).ok());
  absl::StatusOr<CallOutcome> fits = store->CommitCall(*run_, Ask(4));
  ASSERT_TRUE(fits.ok()) << fits.status();
  EXPECT_EQ(redis_.Cli({"HLEN", kBytes}), "3");
  EXPECT_EQ(redis_.Cli({"HGET", kBytes, "total"}), absl::StrCat(cap));
}

}  // namespace
}  // namespace state
}  // namespace toolgate
