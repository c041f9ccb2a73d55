#include "core/util/truncate.h"

#include "gtest/gtest.h"

namespace toolgate {
namespace {

TEST(TruncateText, ShortTextIsUnchanged) {
  EXPECT_EQ(TruncateText("abc", 3), "abc");
  EXPECT_EQ(TruncateText("", 0), "");
}

TEST(TruncateText, LongTextIsCutAndMarked) {
  EXPECT_EQ(TruncateText("abcdef", 3), "abc...");
}

TEST(TruncateText, NeverSplitsAUtf8Sequence) {
  // "é" is two bytes; a cut at byte 2 would split it.
  EXPECT_EQ(TruncateText("a\xC3\xA9z", 2), "a...");
  EXPECT_EQ(TruncateText("a\xC3\xA9z", 3), "a\xC3\xA9...");
}

}  // namespace
}  // namespace toolgate
