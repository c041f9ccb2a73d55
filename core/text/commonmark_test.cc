#include "core/text/commonmark.h"

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/text/commonmark_parser.h"
#include "core/text/lines.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace text {
namespace {

// Offsets as line numbers (0-based), so cases read like the text.
int LineOf(absl::string_view text, size_t offset) {
  int line = 0;
  for (size_t pos = 0; pos < offset && pos < text.size();
       pos = NextLine(text, pos)) {
    if (NextLine(text, pos) <= offset) ++line;
  }
  return line;
}

// "2-5 closed", "2-5 open", with " quote" / " list" when inside them.
std::vector<std::string> Describe(absl::string_view text,
                                  const BlockStructure& blocks) {
  std::vector<std::string> out;
  for (const CodeFence& f : blocks.fences) {
    out.push_back(absl::StrCat(
        LineOf(text, f.opener_line), "-", LineOf(text, f.end),
        f.closed ? " closed" : " open", f.in_block_quote ? " quote" : "",
        f.in_list_item ? " list" : ""));
  }
  return out;
}

struct Case {
  std::string name;
  std::string text;
  std::vector<std::string> fences;
  int trusted_until_line = -1;  // -1: everything is trusted.
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class Blocks : public testing::TestWithParam<Case> {};

TEST_P(Blocks, FencesWhereCommonMarkPutsThem) {
  const Case& c = GetParam();
  const BlockStructure blocks = ParseBlocks(c.text);
  EXPECT_EQ(Describe(c.text, blocks), c.fences);
  if (c.trusted_until_line < 0) {
    EXPECT_EQ(blocks.trusted_until, c.text.size());
  } else {
    EXPECT_EQ(LineOf(c.text, blocks.trusted_until), c.trusted_until_line);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, Blocks,
    testing::Values(
        Case{"top_level", "a\n```json\n{}\n```\nb", {"1-4 closed"}},
        Case{"unclosed_runs_to_the_end", "```\nx", {"0-2 open"}},
        Case{"lone_cr_ends_lines",
             "```\r{}\r```\r~~~\rx",
             {"0-3 closed", "3-5 open"}},
        Case{"crlf", "```\r\n{}\r\n```\r\n", {"0-3 closed"}},
        Case{"inside_an_html_comment_is_no_fence",
             "<!--\n```json\n{}\n```\n-->\n```\n1\n```",
             {"5-8 closed"}},
        Case{"comment_closed_on_its_line",
             "<!-- x -->\n```\n1\n```",
             {"1-4 closed"}},
        Case{"div_runs_to_a_blank_line",
             "<div>\n```\n1\n```\n\n```\n2\n```",
             {"5-8 closed"}},
        Case{"open_tag_cannot_interrupt_a_paragraph",
             "text\n<span>\n```\n1\n```",
             {"2-5 closed"}},
        Case{"open_tag_alone_starts_html", "<span>\n```\n1\n```", {}},
        Case{"pre_runs_over_blank_lines",
             "<pre>\n\n```\n1\n```\n</pre>\n```\n",
             {"6-7 open"}},
        Case{
            "in_block_quote", "> ```\n> 1\n> ```\nafter", {"0-3 closed quote"}},
        Case{"block_quote_ends_the_fence",
             "> ```\n> 1\n```\n2\n```",
             {"0-2 open quote", "2-5 closed"}},
        Case{"in_list_item", "- a\n\n  ```\n  1\n  ```\n", {"2-5 closed list"}},
        Case{"list_item_ends_the_fence",
             "- ```\n  1\n```\n2\n```",
             {"0-2 open list", "2-5 closed"}},
        Case{"lazy_line_keeps_the_item_open",
             "- a\nlazy\n  ```\n  1\n  ```",
             {"2-5 closed list"}},
        Case{"column_zero_leaves_the_item",
             "- a\n\n```\n1\n```",
             {"2-5 closed"}},
        Case{"ordered_item_content_indent",
             "10. a\n\n    ```\n    1\n    ```",
             {"2-5 closed list"}},
        Case{"indented_code_is_no_fence", "    ```\n    1\n    ```", {}},
        Case{"tab_indent_is_indented_code", "\t```\n1", {}},
        Case{"indented_line_continues_a_paragraph", "p\n    ```\n1", {}},
        Case{
            "fence_inside_fence_is_content", "````\n```\n````", {"0-3 closed"}},
        Case{"backtick_in_info_is_no_fence", "```a`b\n1\n```", {"2-3 open"}},
        Case{"byte_order_mark", "\xEF\xBB\xBF```\n1\n```", {"0-3 closed"}},
        Case{"nul_is_a_character",
             std::string("```\n\0\n```", 9),
             {"0-3 closed"}},
        Case{"blank_item_then_blank_line_ends_it",
             "-\n\n  ```\n  1\n  ```",
             {"2-5 closed"}},
        Case{"reference_paragraph_before_setext_is_not_trusted",
             "[a]: /u\n===\n```\n1\n```",
             {"2-5 closed"},
             1},
        Case{"setext_heading_without_references_is_trusted",
             "Title\n===\n```\n1\n```",
             {"2-5 closed"}},
        Case{"checkbox_items_are_trusted",
             "- [x] ran\n- [ ] lint\n\n```\n1\n```",
             {"3-6 closed"}},
        Case{"deep_nesting_is_not_trusted",
             std::string(200, '>') + " x\n```\n1\n```",
             {},
             0}),
    [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

TEST(Blocks, SameFenceAsToolgateReads) {
  const std::string text = "a\n```json\n{}\n```\n- b\n\n  ```\n  2\n  ```\n";
  const BlockStructure blocks = ParseBlocks(text);
  EXPECT_TRUE(IsCommonMarkFence(blocks, 2, 17));
  EXPECT_TRUE(IsCommonMarkFence(blocks, 22, text.size()));  // List item.
  EXPECT_FALSE(IsCommonMarkFence(blocks, 2, 16));           // Other end.
  EXPECT_FALSE(IsCommonMarkFence(blocks, 0, 17));           // Other line.
}

TEST(Blocks, NotInAQuoteNotUnclosedNotUntrusted) {
  const std::string quoted = "> ```\n> 1\n> ```\n";
  EXPECT_FALSE(IsCommonMarkFence(ParseBlocks(quoted), 0, quoted.size()));
  const std::string unclosed = "```\n1\n";
  EXPECT_FALSE(IsCommonMarkFence(ParseBlocks(unclosed), 0, unclosed.size()));
  const std::string untrusted = "[a]: /u\n---\n```\n1\n```\n";
  EXPECT_FALSE(IsCommonMarkFence(ParseBlocks(untrusted), 12, untrusted.size()));
}

TEST(Blocks, LinearOnDeepAndLongText) {
  std::string lines;
  while (lines.size() < 190000) lines += "- > 1. ```\n\n";
  EXPECT_FALSE(ParseBlocks(lines).fences.empty());
  // Blank lines continue every open list item: nesting just under the
  // cap, then many blank lines.
  std::string blanks;
  for (int i = 0; i < 30; ++i) blanks += "- ";
  blanks += "x" + std::string(190000, '\n') + "```\n1\n```\n";
  const BlockStructure deep = ParseBlocks(blanks);
  EXPECT_EQ(deep.trusted_until, blanks.size());
  ASSERT_EQ(deep.fences.size(), 1u);
  EXPECT_TRUE(deep.fences[0].closed);
}

// ParseBlocks answers from the fence lines alone when
// TopLevelBlocks answers; the full parser must agree on every such text.
// Lines and pieces chosen so that both answers are common: fences at line
// starts (closing, nested lengths, info strings with backticks), the
// containers and blocks around them, and each thing the check refuses.
TEST(Blocks, TopLevelScanAgreesWithTheParser) {
  const std::vector<std::string> lines = {"```",
                                          "```json",
                                          "````",
                                          "~~~",
                                          "~~~~ x",
                                          "``` a`b",
                                          "```json `",
                                          "text",
                                          "- item",
                                          "* item",
                                          "1. item",
                                          "2) item",
                                          "> quote",
                                          ">",
                                          "    code",
                                          "\tcode",
                                          "  ```",
                                          "- ```",
                                          "> ```",
                                          " ~~~",
                                          "",
                                          "   ",
                                          "---",
                                          "===",
                                          "# h",
                                          "<div>",
                                          "<!-- c -->",
                                          "- <p>",
                                          "[a]: /u",
                                          "- [x] done",
                                          "[link](u)",
                                          "x ``` y",
                                          "{\"a\": 1}",
                                          "- - - x",
                                          "  - nested",
                                          "      deeper",
                                          "\xEF\xBB\xBF```",
                                          std::string(50, ' ') + "x",
                                          std::string(60, ' '),
                                          std::string(70, '>'),
                                          "1.2.3.4"};
  const std::vector<std::string> endings = {"\n", "\n", "\n", "\r\n", "\r"};
  std::mt19937 rng(20261127);
  std::uniform_int_distribution<size_t> count(1, 14);
  std::uniform_int_distribution<size_t> pick(0, lines.size() - 1);
  std::uniform_int_distribution<size_t> ending(0, endings.size() - 1);
  int simple = 0;
  int with_fence = 0;
  for (int n = 0; n < 60000; ++n) {
    std::string text;
    for (size_t k = count(rng); k > 0; --k) {
      text += lines[pick(rng)] + endings[ending(rng)];
    }
    const std::optional<BlockStructure> top_level =
        internal::TopLevelBlocks(text);
    if (!top_level) continue;
    ++simple;
    const BlockStructure& scanned = *top_level;
    const BlockStructure parsed = internal::Parser(text).Run();
    if (!parsed.fences.empty()) ++with_fence;
    ASSERT_EQ(Describe(text, scanned), Describe(text, parsed)) << text;
    ASSERT_EQ(scanned.trusted_until, parsed.trusted_until) << text;
    for (size_t i = 0; i < parsed.fences.size(); ++i) {
      ASSERT_EQ(scanned.fences[i].opener_line, parsed.fences[i].opener_line);
      ASSERT_EQ(scanned.fences[i].end, parsed.fences[i].end) << text;
    }
  }
  // Both paths are taken often, and the simple one sees fences.
  EXPECT_GT(simple, 6000);
  EXPECT_LT(simple, 54000);
  EXPECT_GT(with_fence, 3000);
}

// Each condition of TopLevelBlocks refuses a text whose structure
// the top-level scan would get wrong.
TEST(Blocks, TopLevelScanRefusesWhatItCannotRead) {
  for (const std::string& text : std::vector<std::string>{
           "- item\n  ```\n  1\n```\n",         // A fence inside an item.
           "<div>\n```\n1\n```\n",              // An HTML block.
           "\xEF\xBB\xBF<div>\n```\n1\n```\n",  // HTML after a BOM.
           "[a]: /u\n---\n```\n1\n```\n",       // Link references.
           "```\n1\n  ```\n",                   // An indented close.
           std::string(60, '>') + " x\n```\n1\n```\n"}) {  // Deep.
    EXPECT_FALSE(internal::TopLevelBlocks(text).has_value()) << text;
  }
  EXPECT_TRUE(internal::TopLevelBlocks("- a\n```json\n{}\n```\n").has_value());
}

}  // namespace
}  // namespace text
}  // namespace toolgate
