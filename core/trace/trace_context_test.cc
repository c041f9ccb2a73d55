#include "core/trace/trace_context.h"

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

TEST(Tracestate, KeptWhenPlausibleDroppedOtherwise) {
  EXPECT_EQ(ParseTraceparent(kGood, " a=1,b=2 ")->tracestate, "a=1,b=2");
  EXPECT_EQ(ParseTraceparent(kGood, std::string(600, 'a'))->tracestate, "");
  EXPECT_EQ(ParseTraceparent(kGood, "a=1\r\nx: y")->tracestate, "");
}

}  // namespace
}  // namespace toolgate::trace
