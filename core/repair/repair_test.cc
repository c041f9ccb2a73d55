#include "core/repair/repair.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace repair {
namespace {

using ::testing::ElementsAreArray;
using ::testing::IsEmpty;

struct RepairCase {
  std::string name;
  std::string input;
  std::string canonical;               // Expected value, canonical JSON.
  std::vector<std::string> repairs;    // Expected repairs, in order.
};

void PrintTo(const RepairCase& c, std::ostream* os) { *os << c.name; }

class Repairs : public testing::TestWithParam<RepairCase> {};

TEST_P(Repairs, AppliedUnderSyntaxRepairAndListed) {
  const RepairCase& c = GetParam();
  ParsedJson parsed = ParseJson(c.input, RepairPolicy::kSyntaxRepair);
  ASSERT_TRUE(parsed.ok()) << parsed.code << ": " << parsed.message;
  EXPECT_EQ(CanonicalJson(parsed.value), c.canonical);
  EXPECT_THAT(parsed.repairs, ElementsAreArray(c.repairs));
}

TEST_P(Repairs, RewrittenTextParsesStrictlyToTheReportedValue) {
  const RepairCase& c = GetParam();
  RewriteResult rewritten = RewriteSyntax(c.input);
  ASSERT_FALSE(rewritten.cut_off);
  absl::StatusOr<Json> strict = ParseStrictJson(rewritten.text);
  ASSERT_TRUE(strict.ok()) << strict.status() << "\n" << rewritten.text;
  EXPECT_EQ(CanonicalJson(*strict), c.canonical);
  EXPECT_THAT(rewritten.repairs, ElementsAreArray(c.repairs));
}

TEST_P(Repairs, RefusedUnderStrict) {
  const RepairCase& c = GetParam();
  ParsedJson parsed = ParseJson(c.input, RepairPolicy::kStrict);
  EXPECT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.code, "invalid_json");
  EXPECT_THAT(parsed.repairs, IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(
    Table, Repairs,
    testing::Values(
        RepairCase{"trailing_comma_object", R"({"a":1,})", R"({"a":1})",
                   {"trailing_comma"}},
        RepairCase{"trailing_comma_nested", "{\"a\":[1,2,\n],\n}",
                   R"({"a":[1,2]})", {"trailing_comma"}},
        RepairCase{"single_quotes", R"({'a': 'b'})", R"({"a":"b"})",
                   {"single_quotes"}},
        RepairCase{"single_quotes_escaped_apostrophe", R"({'a': 'it\'s'})",
                   R"({"a":"it's"})", {"single_quotes"}},
        RepairCase{"single_quotes_holding_double", R"({'a': 'say "hi"'})",
                   R"({"a":"say \"hi\""})", {"single_quotes"}},
        RepairCase{"single_quotes_keep_json_escape", R"({'a': 'x\ny'})",
                   R"({"a":"x\ny"})", {"single_quotes"}},
        RepairCase{"python_literals", R"({"t": True, "f": False, "n": [None]})",
                   R"({"f":false,"n":[null],"t":true})", {"python_literal"}},
        RepairCase{"smart_double_quotes", "{\u201Ca\u201D: \u201Cb c\u201D}",
                   R"({"a":"b c"})", {"smart_quotes"}},
        RepairCase{"smart_single_quotes", "{\u2018a\u2019: \u2018it's\u2019}",
                   R"({"a":"it's"})", {"smart_quotes"}},
        RepairCase{"unquoted_keys", R"({a: 1, b_2: "x", $c: {d: true}})",
                   R"({"$c":{"d":true},"a":1,"b_2":"x"})", {"unquoted_key"}},
        RepairCase{"python_word_as_key_stays_a_key", R"({None: 1})",
                   R"({"None":1})", {"unquoted_key"}},
        RepairCase{"line_comment", "{\"a\": 1 // why\n}", R"({"a":1})",
                   {"comment"}},
        RepairCase{"block_comment", R"(/* lead */ {"a": /* x */ 1})",
                   R"({"a":1})", {"comment"}},
        RepairCase{"comment_then_trailing_comma", "[1, /* x */ ]", "[1]",
                   {"comment", "trailing_comma"}},
        RepairCase{"control_characters", "{\"a\": \"l1\nl2\tt\x01\"}",
                   R"({"a":"l1\nl2\tt\u0001"})", {"control_character"}},
        RepairCase{"markdown_fence", "```json\n{\"a\": 1}\n```\n",
                   R"({"a":1})", {"markdown_fence"}},
        RepairCase{"markdown_tilde_fence_and_quotes", "~~~\n{'a': 1}\n~~~",
                   R"({"a":1})", {"markdown_fence", "single_quotes"}},
        RepairCase{"slashes_inside_strings_are_not_comments",
                   R"({'url': 'http://x/*y*/'})",
                   R"({"url":"http://x/*y*/"})", {"single_quotes"}},
        RepairCase{"everything", "{\n  tool: 'search', // pick\n"
                                 "  \u201Cq\u201D: None,\n  ok: True,\n}",
                   R"({"ok":true,"q":null,"tool":"search"})",
                   {"unquoted_key", "single_quotes", "comment",
                    "smart_quotes", "python_literal", "trailing_comma"}}),
    [](const testing::TestParamInfo<RepairCase>& info) {
      return info.param.name;
    });

struct RefusalCase {
  std::string name;
  std::string input;
  std::string code;
};

void PrintTo(const RefusalCase& c, std::ostream* os) { *os << c.name; }

class Refusals : public testing::TestWithParam<RefusalCase> {};

TEST_P(Refusals, NotRepaired) {
  const RefusalCase& c = GetParam();
  for (RepairPolicy policy :
       {RepairPolicy::kStrict, RepairPolicy::kSyntaxRepair}) {
    ParsedJson parsed = ParseJson(c.input, policy);
    EXPECT_FALSE(parsed.ok()) << CanonicalJson(parsed.value);
    if (policy == RepairPolicy::kSyntaxRepair) {
      EXPECT_EQ(parsed.code, c.code) << parsed.message;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, Refusals,
    testing::Values(
        // Truncation is never closed.
        RefusalCase{"truncated_object", R"({"a": 1,)", "truncated_json"},
        RefusalCase{"truncated_single_quoted", R"({'a': 'hel)",
                    "truncated_json"},
        RefusalCase{"truncated_after_repairs", R"({'a': [1, True)",
                    "truncated_json"},
        RefusalCase{"truncated_in_block_comment", R"({"a": 1} /* note)",
                    "truncated_json"},
        RefusalCase{"unclosed_markdown_fence", "```json\n{\"a\": 1}\n",
                    "truncated_json"},
        RefusalCase{"truncated_escape", "{'a': 'x\\", "truncated_json"},
        // Types never change: bare words are not quoted.
        RefusalCase{"bare_word_value", R"({"a": hello})", "invalid_json"},
        RefusalCase{"nan", R"({'a': NaN})", "invalid_json"},
        RefusalCase{"undefined", R"({a: undefined})", "invalid_json"},
        RefusalCase{"hex_number", R"({'n': 0x10})", "invalid_json"},
        RefusalCase{"leading_dot", R"({'n': .5})", "invalid_json"},
        RefusalCase{"numeric_key", R"({1: 'a'})", "invalid_json"},
        // Fields are never invented or dropped.
        RefusalCase{"duplicate_after_repair", R"({a: 1, "a": 2})",
                    "duplicate_key"},
        RefusalCase{"duplicate_strict", R"({"a": 1, "a": 2})",
                    "duplicate_key"},
        RefusalCase{"double_comma", R"(['a',,'b'])", "invalid_json"},
        RefusalCase{"leading_comma", R"([, 'a'])", "invalid_json"},
        RefusalCase{"only_comma", R"({,})", "invalid_json"},
        RefusalCase{"missing_value", R"({'a':,})", "invalid_json"},
        // Never choose between two values.
        RefusalCase{"two_objects", R"({'a': 1} {'b': 2})", "invalid_json"},
        RefusalCase{"two_fences", "```\n{'a':1}\n```\n```\n{'b':2}\n```",
                    "invalid_json"},
        RefusalCase{"other_language_fence", "```python\n{'a': 1}\n```",
                    "invalid_json"},
        RefusalCase{"mismatched_smart_quote", "{\u201Da\u201D: 1}",
                    "invalid_json"}),
    [](const testing::TestParamInfo<RefusalCase>& info) {
      return info.param.name;
    });

TEST(Repair, StrictJsonComesBackUnchanged) {
  const std::vector<std::string> valid = {
      R"({"a":[1,2.5,"x",true,false,null],"b":{"c":"\u201c//x/*\u201d"}})",
      R"("it's")", "[]", "  {\"k\" : \"'\"}  "};
  for (const std::string& text : valid) {
    RewriteResult rewritten = RewriteSyntax(text);
    EXPECT_EQ(rewritten.text, text);
    EXPECT_THAT(rewritten.repairs, IsEmpty());
    ParsedJson parsed = ParseJson(text, RepairPolicy::kSyntaxRepair);
    ASSERT_TRUE(parsed.ok()) << text;
    EXPECT_THAT(parsed.repairs, IsEmpty());
  }
}

// repair.h promises strict JSON back byte for byte; commas followed by
// whitespace were once written after that whitespace ("[1, 2]" came back
// as "[1 ,2]"), which moved error columns off the input's.
struct UnchangedCase {
  std::string name;
  std::string input;
};

void PrintTo(const UnchangedCase& c, std::ostream* os) { *os << c.name; }

class StrictJsonUnchanged : public testing::TestWithParam<UnchangedCase> {};

TEST_P(StrictJsonUnchanged, RewriteReturnsItByteForByte) {
  const UnchangedCase& c = GetParam();
  ASSERT_TRUE(ParseStrictJson(c.input).ok()) << "not strict JSON: " << c.input;
  RewriteResult rewritten = RewriteSyntax(c.input);
  EXPECT_EQ(rewritten.text, c.input);
  EXPECT_THAT(rewritten.repairs, IsEmpty());
  EXPECT_FALSE(rewritten.cut_off);
}

INSTANTIATE_TEST_SUITE_P(
    Table, StrictJsonUnchanged,
    testing::Values(
        UnchangedCase{"space_after_comma", R"({"a": 1, "b": 2})"},
        UnchangedCase{"array_space_after_comma", "[1, 2, 3]"},
        UnchangedCase{"pretty_printed",
                      "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}\n"},
        UnchangedCase{"tabs_and_crlf", "[1,\t2,\r\n\t3 ,4 , 5]"},
        UnchangedCase{"space_before_and_after_comma", "[ 1 , 2 ]"},
        UnchangedCase{"nested_commas", R"([[1, [2, 3]], {"x": [4, 5]}, 6])"},
        UnchangedCase{"leading_and_trailing_space", "  [1,   2]  \n"},
        UnchangedCase{"comma_inside_string", R"(["a, b", "c ,d"])"}),
    [](const testing::TestParamInfo<UnchangedCase>& info) {
      return info.param.name;
    });

// A repair changes only what it repairs: whitespace keeps its place
// around the commas that stay.
struct RewriteCase {
  std::string name;
  std::string input;
  std::string text;  // Expected rewritten text, exactly.
};

void PrintTo(const RewriteCase& c, std::ostream* os) { *os << c.name; }

class RepairedText : public testing::TestWithParam<RewriteCase> {};

TEST_P(RepairedText, KeepsWhitespaceWhereItWas) {
  const RewriteCase& c = GetParam();
  EXPECT_EQ(RewriteSyntax(c.input).text, c.text);
}

INSTANTIATE_TEST_SUITE_P(
    Table, RepairedText,
    testing::Values(
        RewriteCase{"comment_after_comma", "[1, // c\n2]", "[1, \n2]"},
        RewriteCase{"block_comment_after_comma", "[1, /* c */ 2]",
                    "[1,  2]"},
        RewriteCase{"trailing_comma_then_space", "[1, 2, \n]", "[1, 2 \n]"},
        RewriteCase{"trailing_comma_then_comment", "{'a': 1, // c\n}",
                    "{\"a\": 1 \n}"},
        RewriteCase{"quotes_after_comma", "{'a': 1, 'b': 2}",
                    R"({"a": 1, "b": 2})"},
        RewriteCase{"comma_at_end_of_input", "[1, 2,", "[1, 2,"},
        RewriteCase{"comma_then_space_at_end", "[1, 2, ", "[1, 2, "}),
    [](const testing::TestParamInfo<RewriteCase>& info) {
      return info.param.name;
    });

TEST(Repair, SizeCapAppliesBeforeRepair) {
  JsonLimits limits;
  limits.max_bytes = 10;
  ParsedJson parsed =
      ParseJson("{'a': 'bcdefghij'}", RepairPolicy::kSyntaxRepair, limits);
  EXPECT_EQ(parsed.code, "input_too_large");
}

TEST(Repair, EscapesMayGrowTheTextBeyondTheCap) {
  JsonLimits limits;
  limits.max_bytes = 12;
  ParsedJson parsed =
      ParseJson("['\n\n\n\n\n\n\n']", RepairPolicy::kSyntaxRepair, limits);
  ASSERT_TRUE(parsed.ok()) << parsed.message;
  EXPECT_EQ(parsed.value, Json::array({"\n\n\n\n\n\n\n"}));
}

// Adversarial inputs near the 200 KB cap. The rewriter is one forward pass,
// so these assert results only; a superlinear pass would show as a timeout.
TEST(Repair, AdversarialInputsNearTheCap) {
  const size_t n = 190000;
  struct Case {
    std::string input;
    std::string code;
  };
  const std::vector<Case> cases = {
      {"{'a': '" + std::string(n, ','), "truncated_json"},
      {"{'a': \"" + std::string(n, ','), "truncated_json"},
      {"['x'," + std::string(n, ','), "invalid_json"},
      {"{'a" + std::string(n / 2, '/') + std::string(n / 2, '*'),
       "truncated_json"},
      {"['a', " + std::string(n, '['), "nesting_too_deep"},
      {"[True," + std::string(n, '{'), "invalid_json"},
      {"{a:" + std::string(n, ' ') + "{b:", "truncated_json"},
      {"{'a': '" + std::string(n, '\\'), "truncated_json"},
      {"[" + std::string(n, ' ') + ",]", "invalid_json"},
      {"```json\n{'a': '" + std::string(n, '`'), "truncated_json"},
  };
  for (const Case& c : cases) {
    ParsedJson parsed = ParseJson(c.input, RepairPolicy::kSyntaxRepair);
    EXPECT_EQ(parsed.code, c.code) << c.input.substr(0, 20);
  }
}

TEST(Repair, LargeRepairableInputsSucceed) {
  std::string keys = "{";
  for (int i = 0; i < 15000; ++i) keys += "k" + std::to_string(i) + ": 1, ";
  keys += "}";
  ParsedJson parsed = ParseJson(keys, RepairPolicy::kSyntaxRepair);
  ASSERT_TRUE(parsed.ok()) << parsed.message;
  EXPECT_EQ(parsed.value.size(), 15000u);
  EXPECT_THAT(parsed.repairs,
              ElementsAreArray({"unquoted_key", "trailing_comma"}));

  const std::string newlines = "['" + std::string(150000, '\n') + "']";
  parsed = ParseJson(newlines, RepairPolicy::kSyntaxRepair);
  ASSERT_TRUE(parsed.ok()) << parsed.message;
  EXPECT_EQ(parsed.value[0].get<std::string>().size(), 150000u);
}

}  // namespace
}  // namespace repair
}  // namespace toolgate
