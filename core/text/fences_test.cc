#include "core/text/fences.h"

#include <random>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "core/text/lines.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace text {
namespace {

struct Expected {
  std::string info;
  std::string content;
  bool closed;
};

struct FenceCase {
  std::string name;
  std::string text;
  std::vector<Expected> fences;
};

void PrintTo(const FenceCase& c, std::ostream* os) { *os << c.name; }

class Fences : public testing::TestWithParam<FenceCase> {};

TEST_P(Fences, FoundAsCommonMarkDoes) {
  const FenceCase& c = GetParam();
  std::vector<Fence> found = FindFences(c.text);
  ASSERT_EQ(found.size(), c.fences.size());
  for (size_t i = 0; i < found.size(); ++i) {
    EXPECT_EQ(found[i].info, c.fences[i].info) << i;
    EXPECT_EQ(std::string(found[i].Content(c.text)), c.fences[i].content) << i;
    EXPECT_EQ(found[i].closed, c.fences[i].closed) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, Fences,
    testing::Values(
        FenceCase{
            "backticks", "a\n```json\n{}\n```\nb", {{"json", "{}\n", true}}},
        FenceCase{"tildes", "~~~\n[1]\n~~~", {{"", "[1]\n", true}}},
        FenceCase{"crlf",
                  "x\r\n```JSON\r\n{}\r\n```\r\n",
                  {{"JSON", "{}\r\n", true}}},
        FenceCase{
            "three_space_indent", "   ```\n1\n   ```", {{"", "1\n", true}}},
        FenceCase{
            "four_space_indent_is_not_a_fence", "    ```\n1\n    ```", {}},
        // The last line alone opens a fence that never closes.
        FenceCase{
            "tab_indent_is_not_a_fence", "\t```\n1\n```", {{"", "", false}}},
        FenceCase{"two_backticks_are_inline", "``\n1\n``", {}},
        FenceCase{"backtick_in_info_is_inline_code",
                  "```a`b\n1\n```",
                  {{"", "", false}}},
        FenceCase{"tilde_info_may_hold_backticks",
                  "~~~a`b\n1\n~~~",
                  {{"a`b", "1\n", true}}},
        FenceCase{
            "closer_must_be_as_long", "````\n```\n````", {{"", "```\n", true}}},
        FenceCase{
            "closer_may_be_longer", "```\n1\n`````  ", {{"", "1\n", true}}},
        FenceCase{
            "closer_same_character", "```\n~~~\n```", {{"", "~~~\n", true}}},
        FenceCase{"closer_has_no_info",
                  "```\n```json\n```",
                  {{"", "```json\n", true}}},
        FenceCase{"unclosed_runs_to_end",
                  "```json\n{\"a\":",
                  {{"json", "{\"a\":", false}}},
        FenceCase{"opener_at_end", "text\n```", {{"", "", false}}},
        FenceCase{"inline_backticks_in_content",
                  "```\n{\"a\":\"```x```\"}\n```",
                  {{"", "{\"a\":\"```x```\"}\n", true}}},
        FenceCase{"two_blocks",
                  "```\n1\n```\n~~~json\n2\n~~~",
                  {{"", "1\n", true}, {"json", "2\n", true}}},
        FenceCase{"empty_block", "```\n```", {{"", "", true}}},
        // A lone "\r" ends a line, as in CommonMark: it can neither hide a
        // closing fence nor a later block.
        FenceCase{"lone_cr_line_endings",
                  "```json\r{}\r```\r~~~python\rx\r~~~",
                  {{"json", "{}\r", true}, {"python", "x\r", true}}},
        FenceCase{"lone_cr_closes", "```\r1\r```\rafter", {{"", "1\r", true}}},
        FenceCase{"mixed_endings", "```\r\n1\r2\n```", {{"", "1\r2\n", true}}}),
    [](const testing::TestParamInfo<FenceCase>& info) {
      return info.param.name;
    });

TEST(Fences, JsonInfo) {
  EXPECT_TRUE(IsJsonInfo(""));
  EXPECT_TRUE(IsJsonInfo("json"));
  EXPECT_TRUE(IsJsonInfo("JSON"));
  EXPECT_TRUE(IsJsonInfo("Json title=x"));
  EXPECT_FALSE(IsJsonInfo("jsonc"));
  EXPECT_FALSE(IsJsonInfo("python"));
  EXPECT_FALSE(IsJsonInfo("js"));
}

TEST(Fences, PartialOpenerAtEnd) {
  EXPECT_TRUE(EndsWithPartialFenceOpener("done\n`"));
  EXPECT_TRUE(EndsWithPartialFenceOpener("done\n  ~~"));
  EXPECT_FALSE(EndsWithPartialFenceOpener("done\n```"));
  EXPECT_FALSE(EndsWithPartialFenceOpener("done `"));
  EXPECT_FALSE(EndsWithPartialFenceOpener("done\n"));
  EXPECT_TRUE(EndsWithPartialFenceOpener("done\r``"));
  EXPECT_TRUE(EndsWithPartialFenceOpener("done\n> - `"));
  EXPECT_FALSE(EndsWithPartialFenceOpener("done\n-"));
}

// Every line on which CommonMark could open a fence, whatever contains it.
TEST(Fences, FenceLikeLines) {
  for (const char* line :
       {"```", "~~~", "   ```json", "    ```", "\t```", "> ```", ">```json",
        "> > ~~~", "- ```", "* ```", "+\t```", "1. ```", "12) ~~~",
        "> - 1. ```python", "  -   > ```"}) {
    EXPECT_TRUE(IsFenceLikeLine(line, 0)) << line;
  }
  for (const char* line : {"``", "text ```", "-```", "1.```", "<!-- ```",
                           "a. ```", "\\```", ">", "- ", ""}) {
    EXPECT_FALSE(IsFenceLikeLine(line, 0)) << line;
  }
}

TEST(Fences, LastFenceLikeLineSeesEveryLineEnding) {
  EXPECT_EQ(LastFenceLikeLine("a\n```\nb"), 2u);
  EXPECT_EQ(LastFenceLikeLine("```\n1\n```\rok\r```python"), 13u);
  EXPECT_EQ(LastFenceLikeLine("a\r\n> ```\r\n"), 3u);
  EXPECT_EQ(LastFenceLikeLine("no fence here"), absl::string_view::npos);
  EXPECT_EQ(LastFenceLikeLine(""), absl::string_view::npos);
  EXPECT_EQ(LastFenceLikeLine("```"), 0u);
  EXPECT_EQ(LastFenceLikeLine("```\n"), 0u);
  EXPECT_EQ(LastFenceLikeLine("\n\r~~~"), 2u);
}

// The forward definition LastFenceLikeLine must agree with: every line in
// order, the last fence-like one wins.
size_t LastFenceLikeLineForward(absl::string_view text) {
  size_t last = absl::string_view::npos;
  for (size_t line = 0; line < text.size();) {
    if (IsFenceLikeLine(text, line)) last = line;
    line = SkipLineEnding(text, LineEnd(text, line));
  }
  return last;
}

TEST(Fences, LastFenceLikeLineMatchesTheForwardScan) {
  // Short random texts over the characters that matter: fence runs,
  // container markers, spaces and every line ending.
  constexpr absl::string_view kAlphabet = "`~> \t-*+1.)a\n\r";
  std::mt19937 rng(20261127);
  for (int i = 0; i < 20000; ++i) {
    std::string text(rng() % 24, ' ');
    for (char& c : text) c = kAlphabet[rng() % kAlphabet.size()];
    ASSERT_EQ(LastFenceLikeLine(text), LastFenceLikeLineForward(text))
        << absl::CEscape(text);
  }
}

}  // namespace
}  // namespace text
}  // namespace toolgate
