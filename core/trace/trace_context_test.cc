#include "core/trace/trace_context.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace toolgate::trace {
namespace {

constexpr char kGood[] =
    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

TEST(Traceparent, ReadsTheSpecificationsExample) {
  std::optional<TraceContext> c = ParseTraceparent(kGood, "rojo=00f067aa0ba902b7");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(Hex(c->trace_id.data(), 16), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(Hex(c->span_id.data(), 8), "00f067aa0ba902b7");
  EXPECT_TRUE(c->sampled);
  EXPECT_EQ(c->tracestate, "rojo=00f067aa0ba902b7");
  EXPECT_EQ(FormatTraceparent(c->trace_id, c->span_id, true), kGood);
}

TEST(Traceparent, FlagsOtherThanSampledAreIgnored) {
  std::optional<TraceContext> c = ParseTraceparent(
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-02", "");
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE(c->sampled);
  c = ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03", "");
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->sampled);
}

TEST(Traceparent, AFutureVersionIsReadByItsFirstFields) {
  EXPECT_TRUE(ParseTraceparent(
                  "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what",
                  "")
                  .has_value());
  EXPECT_TRUE(ParseTraceparent(
                  "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "")
                  .has_value());
}

TEST(Traceparent, InvalidHeadersAreIgnored) {
  const char* bad[] = {
      "",
      "00",
      "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
      "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01",
      "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
      "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",
      "0-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
  };
  for (const char* h : bad) {
    EXPECT_FALSE(ParseTraceparent(h, "").has_value()) << h;
  }
}

TEST(Traceparent, SpacesAndTabsAroundAreAllowed) {
  for (const char* h :
       {" 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "\t00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 \t"}) {
    EXPECT_TRUE(ParseTraceparent(h, "").has_value()) << h;
  }
  EXPECT_FALSE(ParseTraceparent(
                   "\n00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                   "")
                   .has_value());
}

// A header sent twice arrives joined with ',' (as HTTP joins it): W3C
// says two traceparent headers are invalid.
TEST(Traceparent, TwoJoinedAreInvalid) {
  const std::string two = std::string(kGood) + "," + kGood;
  EXPECT_FALSE(ParseTraceparent(two, "").has_value());
  const std::string future =
      "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01,"
      "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  EXPECT_FALSE(ParseTraceparent(future, "").has_value());
}

// The specification's tracestate grammar (and the W3C test suite's cases):
// kept as received when it is one, dropped whole otherwise; either way the
// traceparent is read.
TEST(Tracestate, KeptOnlyWhenItIsTheSpecificationsList) {
  const std::string key256 = "a" + std::string(255, 'b');
  const std::string value256(256, 'v');
  std::string members32, members33;
  for (int i = 0; i < 33; ++i) {
    std::string& to = i < 32 ? members32 : members33;
    if (i == 32) to = members32;
    absl::StrAppend(&to, to.empty() ? "" : ",", "k", i, "=v");
  }
  const struct {
    std::string tracestate;
    bool kept;
  } kCases[] = {
      {"rojo=00f067aa0ba902b7", true},
      {"rojo=00f067aa0ba902b7,congo=t61rcWkgMzE", true},
      {"foo=1 \t , \t bar=2", true},
      {",,foo=1,,", true},
      {"", true},
      {"a_-*/0=1", true},
      {"tenant@system=1", true},
      {"0tenant@s0_-*/=x", true},
      {std::string(241, 't') + "@" + std::string(14, 's') + "=1", true},
      {key256 + "=1", true},
      {"k=" + value256, true},
      {"k=a b", true},
      {"k=!\"#$%&'()*+-./:;<>?@[\\]^_`{|}~", true},
      {members32, true},
      {members33, false},
      {"Bearer secret-token", false},
      {"FOO=1", false},
      {"foo =1", false},
      {"foo.bar=1", false},
      {"1foo=1", false},
      {"foo@=1", false},
      {"@foo=1", false},
      {"foo@@bar=1", false},
      {"foo@bar@baz=1", false},
      {"t@1sys=1", false},
      {std::string(242, 't') + "@s=1", false},
      {"t@" + std::string(15, 's') + "=1", false},
      {key256 + "b=1", false},
      {"k=" + value256 + "v", false},
      {"foo=bar=baz", false},
      {"foo=,bar=3", false},
      {"foo=1,foo=2", false},
      {"foo=1\tx", false},
      {"a=1\r\nx: y", false},
      {"k=\x7f", false},
      {"k=\xc3\xa9", false},
      {std::string(600, 'a'), false},
  };
  for (const auto& c : kCases) {
    std::optional<TraceContext> parsed = ParseTraceparent(kGood, c.tracestate);
    ASSERT_TRUE(parsed.has_value()) << c.tracestate;
    if (c.kept) {
      EXPECT_EQ(parsed->tracestate,
                absl::StripAsciiWhitespace(c.tracestate))
          << c.tracestate;
    } else {
      EXPECT_EQ(parsed->tracestate, "") << c.tracestate;
    }
  }
  EXPECT_EQ(ParseTraceparent(kGood, " a=1,b=2 ")->tracestate, "a=1,b=2");
}

}  // namespace
}  // namespace toolgate::trace
