#include "core/util/cancel.h"

#include "gtest/gtest.h"

namespace toolgate {
namespace {

TEST(CancelToken, DefaultTokenNeverCancels) {
  CancelToken token;
  EXPECT_TRUE(token.Check().ok());
  EXPECT_TRUE(token.CheckNow().ok());
}

TEST(CancelToken, PastDeadlineIsDeadlineExceededOnEveryCheck) {
  CancelToken token(nullptr, absl::Now() - absl::Seconds(1));
  EXPECT_EQ(token.Check().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(token.CheckNow().code(), absl::StatusCode::kDeadlineExceeded);
}

TEST(CancelToken, CheckNowAlwaysPollsAndCancellationLatches) {
  bool cancelled = false;
  int polls = 0;
  CancelToken token(
      [&] {
        ++polls;
        return cancelled;
      },
      absl::InfiniteFuture(), absl::Hours(1));
  EXPECT_TRUE(token.Check().ok());
  EXPECT_EQ(polls, 0);  // Within the interval: no poll.
  EXPECT_TRUE(token.CheckNow().ok());
  EXPECT_EQ(polls, 1);
  cancelled = true;
  EXPECT_TRUE(token.Check().ok());  // Not polled yet: still within interval.
  EXPECT_EQ(token.CheckNow().code(), absl::StatusCode::kCancelled);
  cancelled = false;  // Once gone, a caller does not come back.
  EXPECT_EQ(token.Check().code(), absl::StatusCode::kCancelled);
}

TEST(CancelToken, CheckPollsOnceTheIntervalHasPassed) {
  int polls = 0;
  CancelToken token(
      [&] {
        ++polls;
        return true;
      },
      absl::InfiniteFuture(), absl::ZeroDuration());
  EXPECT_EQ(token.Check().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(polls, 1);
}

}  // namespace
}  // namespace toolgate
