#include "core/text/lines.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace toolgate {
namespace text {
namespace {

std::vector<std::string> Split(absl::string_view text) {
  std::vector<std::string> lines;
  for (size_t pos = 0; pos < text.size(); pos = NextLine(text, pos)) {
    lines.emplace_back(LineText(text, pos));
  }
  return lines;
}

TEST(Lines, EndAtLineFeedCarriageReturnOrBoth) {
  EXPECT_EQ(Split("a\nb\r\nc\rd"),
            (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(Split("a\r\rb"), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(Split("a\n\r\nb"), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(Split("a\n"), (std::vector<std::string>{"a"}));
  EXPECT_EQ(Split(""), (std::vector<std::string>{}));
}

// A lone "\r" ends a line for CommonMark renderers; a reader that missed it
// would take the next line for the rest of this one.
TEST(Lines, LoneCarriageReturnStartsALine) {
  const std::string text = "x\r```python\ny";
  EXPECT_TRUE(IsLineStart(text, 2));
  EXPECT_EQ(LineText(text, 2), "```python");
  EXPECT_EQ(LineStart(text, 5), 2u);
  EXPECT_EQ(LineEnd(text, 0), 1u);
}

TEST(Lines, TheLineFeedOfACrLfIsNoLineStart) {
  const std::string text = "a\r\nb";
  EXPECT_TRUE(IsLineStart(text, 0));
  EXPECT_FALSE(IsLineStart(text, 1));
  EXPECT_FALSE(IsLineStart(text, 2));
  EXPECT_TRUE(IsLineStart(text, 3));
  EXPECT_EQ(LineStart(text, 2), 0u);  // The "\n" belongs to line "a".
  EXPECT_EQ(LineStart(text, 3), 3u);
  EXPECT_EQ(NextLine(text, 0), 3u);
  EXPECT_TRUE(IsLineStart("a\r", 2));
  EXPECT_EQ(LineStart("a\n", 2), 2u);
}

}  // namespace
}  // namespace text
}  // namespace toolgate
