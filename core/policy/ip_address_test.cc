#include "core/policy/ip_address.h"

#include <optional>
#include <string>

#include "gtest/gtest.h"

namespace toolgate::policy {
namespace {

TEST(ParseIpv4InetAtonTest, EverySpellingOfLoopback) {
  for (const char* s : {"127.0.0.1", "2130706433", "0x7f.1", "0x7f000001",
                        "0177.0.0.1", "0177.1", "127.1", "127.0.1",
                        "0x7F.0.0.0x1", "017700000001", "127.000.000.001"}) {
    std::optional<uint32_t> a = ParseIpv4InetAton(s);
    ASSERT_TRUE(a.has_value()) << s;
    EXPECT_EQ(*a, 0x7F000001u) << s;
  }
}

TEST(ParseIpv4InetAtonTest, RefusesWhatInetAtonRefuses) {
  for (const char* s : {"",           ".",          "1.",
                        ".1",         "1..2",       "1.2.3.4.5",
                        "08",         "09.1",       "0x7g",
                        "256.1.1.1",  "1.256.1.1",  "1.2.65536",
                        "1.16777216", "4294967296", "99999999999999999999",
                        "1.2.3.256",  "1 .2",       "+1",
                        "-1",         "1.2.3.4 "}) {
    EXPECT_FALSE(ParseIpv4InetAton(s).has_value()) << s;
  }
}

TEST(ParseIpv4InetAtonTest, BareHexPrefixIsZero) {
  EXPECT_EQ(ParseIpv4InetAton("0x"), std::optional<uint32_t>(0));
  EXPECT_EQ(ParseIpv4InetAton("4294967295"),
            std::optional<uint32_t>(0xFFFFFFFFu));
  EXPECT_EQ(ParseIpv4InetAton("1.2.65535"),
            std::optional<uint32_t>(0x0102FFFFu));
}

TEST(EndsInNumberTest, LastLabelDecides) {
  EXPECT_TRUE(EndsInNumber("1.2.3.4"));
  EXPECT_TRUE(EndsInNumber("example.0x1f"));
  EXPECT_TRUE(EndsInNumber("0x"));
  EXPECT_TRUE(EndsInNumber("foo.08"));
  EXPECT_FALSE(EndsInNumber("1.2.3.com"));
  EXPECT_FALSE(EndsInNumber("example.org"));
  EXPECT_FALSE(EndsInNumber("1e100.net"));
  EXPECT_FALSE(EndsInNumber("a.0x1g"));
  EXPECT_FALSE(EndsInNumber(""));
}

uint32_t V4(const char* s) { return *ParseIpv4InetAton(s); }

TEST(IsPublicIpv4Test, SpecialRangesAndNeighbours) {
  const struct {
    const char* address;
    bool is_public;
  } kCases[] = {
      {"0.0.0.0", false},         {"1.0.0.0", true},
      {"10.0.0.1", false},        {"11.0.0.1", true},
      {"100.64.0.1", false},      {"100.63.255.255", true},
      {"100.127.255.255", false}, {"100.128.0.0", true},
      {"127.0.0.1", false},       {"128.0.0.1", true},
      {"169.254.169.254", false}, {"169.253.1.1", true},
      {"172.16.0.1", false},      {"172.31.255.255", false},
      {"172.15.255.255", true},   {"172.32.0.0", true},
      {"192.0.0.8", false},       {"192.0.2.1", false},
      {"192.0.3.1", true},        {"192.88.99.1", false},
      {"192.168.1.1", false},     {"192.169.0.1", true},
      {"198.18.0.1", false},      {"198.19.255.255", false},
      {"198.20.0.1", true},       {"198.51.100.7", false},
      {"203.0.113.9", false},     {"203.0.114.9", true},
      {"224.0.0.1", false},       {"239.255.255.250", false},
      {"240.0.0.1", false},       {"255.255.255.255", false},
      {"8.8.8.8", true},          {"93.184.216.34", true},
      {"223.255.255.255", true},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(IsPublicIpv4(V4(c.address)), c.is_public) << c.address;
  }
}

TEST(IsPublicIpv6Test, SpecialRangesAndNeighbours) {
  const struct {
    const char* address;
    bool is_public;
  } kCases[] = {
      {"::", false},
      {"::1", false},
      {"::ffff:127.0.0.1", false},
      {"::ffff:7f00:1", false},
      {"::ffff:169.254.169.254", false},
      {"::ffff:8.8.8.8", true},
      {"::127.0.0.1", false},  // IPv4-compatible (deprecated).
      {"::8.8.8.8", false},
      {"64:ff9b::7f00:1", false},
      {"64:ff9b::10.0.0.1", false},
      {"64:ff9b::8.8.8.8", true},
      {"64:ff9b:1::8.8.8.8", false},  // Local-use NAT64.
      {"2002:7f00:1::", false},       // 6to4 of 127.0.0.1.
      {"2002:0808:0808::1", true},    // 6to4 of 8.8.8.8.
      {"2001::1", false},             // Teredo.
      {"2001:db8::1", false},
      {"2001:4860:4860::8888", true},
      {"2606:4700:4700::1111", true},
      {"3fff::1", false},
      {"fc00::1", false},
      {"fd12:3456::1", false},
      {"fe80::1", false},
      {"fec0::1", false},
      {"ff02::1", false},
      {"100::1", false},
      {"4000::1", false},
  };
  for (const auto& c : kCases) {
    std::optional<std::array<uint8_t, 16>> a = ParseIpv6(c.address);
    ASSERT_TRUE(a.has_value()) << c.address;
    EXPECT_EQ(IsPublicIpv6(*a), c.is_public) << c.address;
  }
}

TEST(ParseIpv6Test, RefusesNonAddresses) {
  for (const char* s : {"", ":::", "1::2::3", "fe80::1%eth0", "[::1]",
                        "12345::", "::ffff:127.1"}) {
    EXPECT_FALSE(ParseIpv6(s).has_value()) << s;
  }
}

}  // namespace
}  // namespace toolgate::policy
