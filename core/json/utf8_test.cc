#include "core/json/utf8.h"

#include <string>

#include "gtest/gtest.h"

namespace toolgate {
namespace {

TEST(Utf8, FindsTheFirstIllFormedByte) {
  struct Case {
    std::string text;
    size_t bad;
  };
  const size_t ok = absl::string_view::npos;
  for (const Case& c : {Case{"plain", ok}, Case{"h\xc3\xa9\xf0\x9f\x98\x80", ok},
                        Case{"a\xc0\xaf", 1},          // Overlong '/'.
                        Case{"ab\xed\xa0\x80", 2},     // Surrogate.
                        Case{"\xf4\x90\x80\x80", 0},   // Above U+10FFFF.
                        Case{"x\x80", 1},              // Lone continuation.
                        Case{"\xe2\x80", 0},           // Truncated.
                        Case{"\xff", 0}}) {
    EXPECT_EQ(FindInvalidUtf8(c.text), c.bad) << c.text;
  }
}

TEST(Utf8, ReplacesEachIllFormedByteAndKeepsTheRest) {
  EXPECT_EQ(ToValidUtf8("ok \xc3\xa9"), "ok \xc3\xa9");
  EXPECT_EQ(ToValidUtf8("a\xe2\x80" "b"), "a\xef\xbf\xbd\xef\xbf\xbd" "b");
  EXPECT_EQ(FindInvalidUtf8(ToValidUtf8("\xff\xfe\xc0")), absl::string_view::npos);
}

}  // namespace
}  // namespace toolgate
