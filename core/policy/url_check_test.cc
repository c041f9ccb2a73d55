#include <optional>
#include <string>

#include "core/policy/argument_checks.h"
#include "gtest/gtest.h"

namespace toolgate::policy {
namespace {

struct UrlCase {
  std::string value;
  std::string code;  // Empty: passes.
};

void ExpectDecision(const UrlRule& rule, const UrlCase& c) {
  std::optional<ArgumentViolation> v = CheckUrl(c.value, rule);
  if (c.code.empty()) {
    EXPECT_FALSE(v.has_value())
        << c.value << " -> " << v->code << ": " << v->message;
  } else {
    ASSERT_TRUE(v.has_value()) << c.value;
    EXPECT_EQ(v->code, c.code) << c.value << ": " << v->message;
  }
}

class OpenUrlTest : public ::testing::TestWithParam<UrlCase> {};

// No hosts list: any public name or address, nothing local.
TEST_P(OpenUrlTest, Decides) {
  const UrlRule rule{{"http", "https"}, {}, {}};
  ASSERT_TRUE(ValidateUrlRule(rule).ok());
  ExpectDecision(rule, GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Table, OpenUrlTest,
    ::testing::Values(
        UrlCase{"https://example.org/a?b=c#d", ""},
        UrlCase{"HTTPS://Example.ORG./x", ""}, UrlCase{"http://8.8.8.8/", ""},
        UrlCase{"http://[2606:4700:4700::1111]/", ""},
        UrlCase{"https://xn--bcher-kva.de/", ""},
        UrlCase{"https://a_b.example.com/", ""},
        UrlCase{"https://example.org/%2e%2e/x", ""},
        UrlCase{"https://example.org/a@b", ""},
        UrlCase{"https://example.org:443/", ""},
        // Cloud metadata and loopback in every spelling.
        UrlCase{"http://169.254.169.254/latest/meta-data/",
                "url_private_address"},
        UrlCase{"http://127.0.0.1/", "url_private_address"},
        UrlCase{"http://2130706433/", "url_private_address"},
        UrlCase{"http://0x7f.1/", "url_private_address"},
        UrlCase{"http://0x7f.1./", "url_private_address"},
        UrlCase{"http://0177.0.0.1/", "url_private_address"},
        UrlCase{"http://127.1/", "url_private_address"},
        UrlCase{"http://127.0.0.1./", "url_private_address"},
        UrlCase{"http://0/", "url_private_address"},
        UrlCase{"http://0x/", "url_private_address"},
        UrlCase{"http://0.0.0.0/", "url_private_address"},
        UrlCase{"http://10.1.2.3/", "url_private_address"},
        UrlCase{"http://172.16.0.1/", "url_private_address"},
        UrlCase{"http://192.168.0.1/", "url_private_address"},
        UrlCase{"http://100.64.0.1/", "url_private_address"},
        UrlCase{"http://224.0.0.1/", "url_private_address"},
        UrlCase{"http://[::1]/", "url_private_address"},
        UrlCase{"http://[::]/", "url_private_address"},
        UrlCase{"http://[::ffff:127.0.0.1]/", "url_private_address"},
        UrlCase{"http://[::ffff:7f00:1]/", "url_private_address"},
        UrlCase{"http://[0:0:0:0:0:ffff:a9fe:a9fe]/", "url_private_address"},
        UrlCase{"http://[64:ff9b::a9fe:a9fe]/", "url_private_address"},
        UrlCase{"http://[fd00::1]/", "url_private_address"},
        UrlCase{"http://[fe80::1]/", "url_private_address"},
        UrlCase{"http://[fe80::1%25eth0]/", "url_invalid"},
        // Local names.
        UrlCase{"http://localhost/", "url_private_address"},
        UrlCase{"http://LOCALHOST./", "url_private_address"},
        UrlCase{"http://api.localhost/", "url_private_address"},
        UrlCase{"http://printer.local/", "url_private_address"},
        UrlCase{"http://metadata.google.internal/", "url_private_address"},
        UrlCase{"http://metadata/", "url_private_address"},
        UrlCase{"http://localhost.example.org/", ""},
        UrlCase{"http://internal.example.org/", ""},
        // Numbers that are not addresses are not names either.
        UrlCase{"http://1.2.3.4.5/", "url_invalid"},
        UrlCase{"http://08.1/", "url_invalid"},
        UrlCase{"http://4294967296/", "url_invalid"},
        UrlCase{"http://1.2.3.com/", ""},
        // Userinfo in any form.
        UrlCase{"http://user@example.org/", "url_userinfo"},
        UrlCase{"http://user:pw@example.org/", "url_userinfo"},
        UrlCase{"http://:pw@example.org/", "url_userinfo"},
        UrlCase{"http://example.org@169.254.169.254/", "url_userinfo"},
        UrlCase{"http://evil.com\\@good.com/", "url_invalid"},
        // Ports: only the default when none are listed.
        UrlCase{"http://example.org:8080/", "url_port_not_allowed"},
        UrlCase{"http://example.org:443/", "url_port_not_allowed"},
        UrlCase{"http://example.org:80/", ""},
        UrlCase{"http://example.org:/", ""},
        UrlCase{"http://example.org:0/", "url_port_not_allowed"},
        UrlCase{"http://example.org:99999/", "url_invalid"},
        // Schemes.
        UrlCase{"ftp://example.org/", "url_scheme_not_allowed"},
        UrlCase{"file:///etc/passwd", "url_scheme_not_allowed"},
        UrlCase{"gopher://example.org/", "url_scheme_not_allowed"},
        UrlCase{"javascript:alert(1)", "url_invalid"},
        // Shapes clients disagree on.
        UrlCase{"http:/example.org", "url_invalid"},
        UrlCase{"http:example.org", "url_invalid"},
        UrlCase{"example.org", "url_invalid"},
        UrlCase{"//example.org/", "url_invalid"},
        UrlCase{"http:///x", "url_invalid"},
        UrlCase{"http://exa mple.org/", "url_invalid"},
        UrlCase{"http://example.org/\n", "url_invalid"},
        UrlCase{"http://ex%61mple.org/", "url_invalid"},
        UrlCase{"http://x..y/", "url_invalid"},
        UrlCase{"http://*.example.org/", "url_invalid"},
        UrlCase{"http://b\xc3\xbc"
                "cher.de/",
                "url_invalid"},
        UrlCase{"", "url_invalid"}));

class ListedUrlTest : public ::testing::TestWithParam<UrlCase> {};

TEST_P(ListedUrlTest, Decides) {
  const UrlRule rule{{"https"},
                     {"api.example.com", "*.cdn.example.org", "10.0.0.5",
                      "[2001:4860::1]", "Files.Example.NET."},
                     {443, 8443}};
  ASSERT_TRUE(ValidateUrlRule(rule).ok()) << ValidateUrlRule(rule);
  ExpectDecision(rule, GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Table, ListedUrlTest,
    ::testing::Values(
        UrlCase{"https://api.example.com/v1", ""},
        UrlCase{"https://API.example.com./v1", ""},
        UrlCase{"https://files.example.net/", ""},
        UrlCase{"https://api.example.com:8443/", ""},
        UrlCase{"https://api.example.com:444/", "url_port_not_allowed"},
        UrlCase{"https://example.com/", "url_host_not_allowed"},
        UrlCase{"https://api.example.com.evil.org/", "url_host_not_allowed"},
        UrlCase{"https://evilapi.example.com/", "url_host_not_allowed"},
        UrlCase{"https://a.cdn.example.org/", ""},
        UrlCase{"https://a.b.cdn.example.org/", ""},
        UrlCase{"https://cdn.example.org/", "url_host_not_allowed"},
        UrlCase{"https://xcdn.example.org/", "url_host_not_allowed"},
        // Listed addresses match in any spelling; private ones are the
        // manifest author's explicit choice.
        UrlCase{"https://10.0.0.5/", ""}, UrlCase{"https://0x0a.0.0.5/", ""},
        UrlCase{"https://167772165/", ""},
        UrlCase{"https://10.0.0.6/", "url_host_not_allowed"},
        UrlCase{"https://[2001:4860:0::1]/", ""},
        UrlCase{"https://[2001:4860::2]/", "url_host_not_allowed"},
        UrlCase{"https://127.0.0.1/", "url_host_not_allowed"},
        UrlCase{"https://localhost/", "url_host_not_allowed"},
        UrlCase{"https://b\xc3\xbc"
                "cher.de/",
                "url_host_not_allowed"},
        UrlCase{"http://api.example.com/", "url_scheme_not_allowed"},
        UrlCase{"https://u@api.example.com/", "url_userinfo"}));

TEST(UrlRuleTest, SchemesWithoutCurlDefaultsUseOurs) {
  const UrlRule rule{{"ws", "wss"}, {}, {}};
  ASSERT_TRUE(ValidateUrlRule(rule).ok());
  EXPECT_FALSE(CheckUrl("ws://example.org/socket", rule).has_value());
  EXPECT_FALSE(CheckUrl("wss://example.org:443/", rule).has_value());
  EXPECT_TRUE(CheckUrl("wss://example.org:80/", rule).has_value());
}

TEST(UrlRuleTest, InvalidRulesNameTheMember) {
  const struct {
    UrlRule rule;
    const char* member;
  } kCases[] = {
      {{{}, {}, {}}, "schemes"},
      {{{"gopher"}, {}, {}}, "schemes[0]"},
      {{{"https", "HTTP"}, {}, {}}, "schemes[1]"},
      {{{"https"}, {""}, {}}, "hosts[0]"},
      {{{"https"}, {"a.com", "*"}, {}}, "hosts[1]"},
      {{{"https"}, {"*.com"}, {}}, "hosts[0]"},
      {{{"https"}, {"a.*.com"}, {}}, "hosts[0]"},
      {{{"https"},
        {"b\xc3\xbc"
         "cher.de"},
        {}},
       "hosts[0]"},
      {{{"https"}, {"a..b"}, {}}, "hosts[0]"},
      {{{"https"}, {"0x7f.1"}, {}}, "hosts[0]"},
      {{{"https"}, {"[::1"}, {}}, "hosts[0]"},
      {{{"https"}, {"a b.com"}, {}}, "hosts[0]"},
      {{{"https"}, {}, {0}}, "ports[0]"},
      {{{"https"}, {}, {443, 65536}}, "ports[1]"},
  };
  for (const auto& c : kCases) {
    absl::Status s = ValidateUrlRule(c.rule);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.member;
    EXPECT_NE(s.message().find(c.member), absl::string_view::npos)
        << s.message();
  }
  EXPECT_TRUE(
      ValidateUrlRule({{"https"}, {"[::1]", "127.0.0.1"}, {1, 65535}}).ok());
}

TEST(UrlRuleTest, UnvalidatedRuleWithUnknownSchemeFailsClosed) {
  const UrlRule rule{{"gopher"}, {}, {}};
  std::optional<ArgumentViolation> v = CheckUrl("gopher://example.org/", rule);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->code, "url_scheme_not_allowed");
}

TEST(UrlMessageTest, BoundedAndActionable) {
  const std::string url = "http://127.0.0.1/" + std::string(5000, 'a');
  std::optional<ArgumentViolation> v = CheckUrl(url, UrlRule{{"http"}, {}, {}});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->code, "url_private_address");
  EXPECT_LT(v->message.size(), 400u);
  EXPECT_EQ(CheckUrl(std::string(9000, 'a'), UrlRule{{"http"}, {}, {}})->code,
            "url_invalid");
}

}  // namespace
}  // namespace toolgate::policy
