#include "server/mesh_grants.h"

#include <string>

#include "gtest/gtest.h"

namespace toolgate {
namespace server {
namespace {

TEST(RunGrants, AGrantGivesItsRunOnce) {
  RunGrants grants;
  auto a = grants.Issue({"run-a", "token-a"});
  auto b = grants.Issue({"run-b", "token-b"});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);
  EXPECT_EQ(a->size(), 32u);  // 128 random bits, hex.
  auto taken = grants.Take(*b);
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ(taken->run_id, "run-b");
  EXPECT_EQ(taken->run_token, "token-b");
  EXPECT_FALSE(grants.Take(*b).has_value());  // Used.
  EXPECT_TRUE(grants.Take(*a).has_value());
}

TEST(RunGrants, UnknownAndExpiredGrantsGiveNothing) {
  absl::Time now = absl::FromUnixSeconds(1000);
  RunGrants grants([&] { return now; });
  EXPECT_FALSE(grants.Take("").has_value());
  EXPECT_FALSE(grants.Take("0123456789abcdef0123456789abcdef").has_value());
  auto grant = grants.Issue({"run", "token"});
  ASSERT_TRUE(grant.ok());
  now += RunGrants::kGrantTtl;
  EXPECT_FALSE(grants.Take(*grant).has_value());
}

TEST(RunGrants, TheOldestGoFirstPastTheCap) {
  RunGrants grants;
  auto first = grants.Issue({"run-0", "t"});
  ASSERT_TRUE(first.ok());
  std::string last;
  for (size_t i = 0; i < RunGrants::kMaxGrants; ++i) {
    last = *grants.Issue({"run", "t"});
  }
  EXPECT_FALSE(grants.Take(*first).has_value());
  EXPECT_TRUE(grants.Take(last).has_value());
}

}  // namespace
}  // namespace server
}  // namespace toolgate
