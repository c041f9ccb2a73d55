#include "core/redis/address.h"

#include "gtest/gtest.h"

namespace toolgate::redis {
namespace {

struct Good {
  const char* url;
  Address::Transport transport;
  const char* host;
  int port;
  int db;
  const char* user;
  const char* path;
};

TEST(ParseAddress, ReadsEverySpelling) {
  const Good cases[] = {
      {"redis://127.0.0.1:6380", Address::Transport::kTcp, "127.0.0.1", 6380, 0, "", ""},
      {"redis://localhost", Address::Transport::kTcp, "localhost", 6379, 0, "", ""},
      {"redis://cache.svc:7000/3", Address::Transport::kTcp, "cache.svc", 7000, 3, "", ""},
      {"redis://[::1]:6390/1", Address::Transport::kTcp, "::1", 6390, 1, "", ""},
      {"rediss://toolgate@redis.example:6380/0", Address::Transport::kTls, "redis.example", 6380, 0, "toolgate", ""},
      {"redis://a%40b@h:1", Address::Transport::kTcp, "h", 1, 0, "a@b", ""},
      {"unix:///run/redis/redis.sock", Address::Transport::kUnix, "", 6379, 0, "", "/run/redis/redis.sock"},
  };
  for (const Good& c : cases) {
    SCOPED_TRACE(c.url);
    absl::StatusOr<Address> a = ParseAddress(c.url);
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(a->transport, c.transport);
    EXPECT_EQ(a->host, c.host);
    EXPECT_EQ(a->port, c.port);
    EXPECT_EQ(a->db, c.db);
    EXPECT_EQ(a->user, c.user);
    EXPECT_EQ(a->path, c.path);
  }
}

TEST(ParseAddress, RefusesWithTheFlagNamed) {
  struct Bad {
    const char* url;
    const char* why;
  };
  const Bad cases[] = {
      {"redis://:secret@h:6379", "password"},
      {"redis://user:secret@h:6379", "password"},
      {"rediss://u:p@h", "password"},
      {"http://h:6379", "use memory"},
      {"redis:/h", "use memory"},
      {"redis://h:0", "port"},
      {"redis://h:65536", "not a URL"},
      {"redis://h:6379/x", "database"},
      {"redis://h:6379/-1", "database"},
      {"redis://h:6379/1/2", "database"},
      {"redis://h:6379/999999", "database"},
      {"redis://h:6379/0?db=2", "query"},
      {"redis://h:6379/#f", "fragment"},
      {"redis://", "not a URL"},
      {"unix://relative.sock", "ABSOLUTE"},
      {"unix:///a.sock?db=1", "query"},
      {"memory", "use memory"},
      {"", "use memory"},
  };
  for (const Bad& c : cases) {
    SCOPED_TRACE(c.url);
    absl::StatusOr<Address> a = ParseAddress(c.url);
    ASSERT_FALSE(a.ok());
    EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(a.status().message().find("--state_store"), absl::string_view::npos);
    EXPECT_NE(a.status().message().find(c.why), absl::string_view::npos)
        << a.status();
  }
}

TEST(ParseAddress, ToStringHoldsNoSecretAndReadsBack) {
  for (const char* url : {"redis://u@h:1/2", "rediss://[::1]:6380/0",
                          "unix:///tmp/r.sock"}) {
    absl::StatusOr<Address> a = ParseAddress(url);
    ASSERT_TRUE(a.ok()) << url;
    absl::StatusOr<Address> again = ParseAddress(a->ToString());
    ASSERT_TRUE(again.ok()) << a->ToString();
    EXPECT_EQ(again->ToString(), a->ToString());
  }
}

}  // namespace
}  // namespace toolgate::redis
