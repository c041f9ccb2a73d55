#include "core/extract/extract.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace extract {
namespace {

using repair::RepairPolicy;
using ::testing::ElementsAreArray;
using ::testing::IsEmpty;

// A real call and a dangerous example a model might show in its reasoning.
const std::string kWeather =
    R"({"name": "get_weather", "arguments": {"city": "Paris"}})";
const std::string kWeatherArgs = R"({"city":"Paris"})";
const std::string kRm = R"({"name": "delete_all", "arguments": {}})";

struct Call {
  std::string name;
  std::string args;  // Canonical JSON.
  std::string source;
};

struct FoundCase {
  std::string name;
  std::string text;
  std::vector<Call> calls;
  int seen;
};

void PrintTo(const FoundCase& c, std::ostream* os) { *os << c.name; }

void ExpectCalls(const ExtractionResult& r, const std::vector<Call>& calls,
                 int seen) {
  ASSERT_TRUE(r.ok()) << r.error.code << ": " << r.error.message;
  ASSERT_EQ(r.calls.size(), calls.size());
  EXPECT_EQ(r.candidates_seen, seen);
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(r.calls[i].name, calls[i].name) << i;
    EXPECT_EQ(CanonicalJson(r.calls[i].arguments), calls[i].args) << i;
    EXPECT_EQ(r.calls[i].source_name(), calls[i].source) << i;
    EXPECT_EQ(r.calls[i].candidates_seen, seen) << i;
  }
}

class Found : public testing::TestWithParam<FoundCase> {};

TEST_P(Found, UnderBothPoliciesWithoutRepairs) {
  const FoundCase& c = GetParam();
  for (RepairPolicy policy :
       {RepairPolicy::kStrict, RepairPolicy::kSyntaxRepair}) {
    ExtractionResult r = ExtractToolCalls(c.text, policy);
    ExpectCalls(r, c.calls, c.seen);
    for (const ExtractedCall& call : r.calls) {
      EXPECT_THAT(call.repairs, IsEmpty());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, Found,
    testing::Values(
        FoundCase{"tag", "<tool_call>\n" + kWeather + "\n</tool_call>",
                  {{"get_weather", kWeatherArgs, "tool_call_tag"}}, 1},
        FoundCase{"parallel_tags",
                  "<tool_call>" + kWeather + "</tool_call>\n<tool_call>" +
                      R"({"name":"b","arguments":{"x":1}})" + "</tool_call>",
                  {{"get_weather", kWeatherArgs, "tool_call_tag"},
                   {"b", R"({"x":1})", "tool_call_tag"}},
                  2},
        FoundCase{"closing_tag_inside_a_string",
                  R"(<tool_call>{"name":"w","arguments":{"s":"</tool_call>"}})"
                  "</tool_call>",
                  {{"w", R"({"s":"</tool_call>"})", "tool_call_tag"}}, 1},
        FoundCase{"tags_after_a_bare_object_are_the_group",
                  kRm + "\n<tool_call>" + kWeather + "</tool_call>" +
                      "<tool_call>" + kWeather + "</tool_call>",
                  {{"get_weather", kWeatherArgs, "tool_call_tag"},
                   {"get_weather", kWeatherArgs, "tool_call_tag"}},
                  3},
        FoundCase{"only_tags_after_the_last_other_candidate",
                  "<tool_call>" + kRm + "</tool_call> e.g. " + kRm +
                      " then <tool_call>" + kWeather + "</tool_call>",
                  {{"get_weather", kWeatherArgs, "tool_call_tag"}}, 3},
        FoundCase{"example_tag_in_prose_is_scratchpad",
                  "Example: <tool_call>" + kRm +
                      "</tool_call>\nNow the real one:\n<tool_call>" +
                      kWeather + "</tool_call>",
                  {{"get_weather", kWeatherArgs, "tool_call_tag"}}, 2},
        FoundCase{"backtick_fence", "Calling:\n```json\n" + kWeather + "\n```\n",
                  {{"get_weather", kWeatherArgs, "fenced_block"}}, 1},
        FoundCase{"tilde_fence_no_info", "~~~\n" + kWeather + "\n~~~",
                  {{"get_weather", kWeatherArgs, "fenced_block"}}, 1},
        FoundCase{"uppercase_info_and_crlf",
                  "Calling:\r\n```JSON\r\n" + kWeather + "\r\n```\r\n",
                  {{"get_weather", kWeatherArgs, "fenced_block"}}, 1},
        FoundCase{"last_fence_wins",
                  "```json\n" + kRm + "\n```\nNo, this:\n```json\n" +
                      kWeather + "\n```",
                  {{"get_weather", kWeatherArgs, "fenced_block"}}, 2},
        FoundCase{"example_in_reasoning_before_real_call",
                  "A call looks like " + kRm +
                      " but I must not do that.\n```json\n" + kWeather +
                      "\n```",
                  {{"get_weather", kWeatherArgs, "fenced_block"}}, 2},
        FoundCase{"think_block_is_skipped",
                  "<think>maybe ```json\n" + kRm + "\n``` or " + kRm +
                      "</think>\n" + kWeather,
                  {{"get_weather", kWeatherArgs, "bare_object"}}, 1},
        FoundCase{"prefilled_think_discards_what_came_before",
                  "reasoning " + kRm + "</think>\n" + kWeather,
                  {{"get_weather", kWeatherArgs, "bare_object"}}, 1},
        FoundCase{"fence_of_another_language_is_masked",
                  "```python\nrun(" + kRm + ")\n```\nSo: " + kWeather,
                  {{"get_weather", kWeatherArgs, "bare_object"}}, 1},
        FoundCase{"react",
                  "Thought: I need the weather.\nAction: get_weather\n"
                  "Action Input: {\"city\": \"Paris\"}\nObservation:",
                  {{"get_weather", kWeatherArgs, "react"}}, 1},
        FoundCase{"react_multiline_input_after_blank_line",
                  "Action:  get_weather \r\n\r\nAction Input:\n{\n"
                  "  \"city\": \"Paris\"\n}\n",
                  {{"get_weather", kWeatherArgs, "react"}}, 1},
        FoundCase{"react_fenced_input",
                  "Action: get_weather\nAction Input:\n```json\n"
                  "{\"city\": \"Paris\"}\n```\n",
                  {{"get_weather", kWeatherArgs, "react"}}, 1},
        FoundCase{"last_react_wins",
                  "Action: a\nAction Input: {}\nObservation: no\n"
                  "Action: get_weather\nAction Input: {\"city\":\"Paris\"}",
                  {{"get_weather", kWeatherArgs, "react"}}, 2},
        FoundCase{"bare_object_in_prose",
                  "Sure! " + kWeather + " Hope this helps.",
                  {{"get_weather", kWeatherArgs, "bare_object"}}, 1},
        FoundCase{"braces_in_prose_are_not_candidates",
                  "Sets like {1, 2} or {x} or a lone { do not count. " +
                      kWeather + " {done}",
                  {{"get_weather", kWeatherArgs, "bare_object"}}, 1},
        FoundCase{"braces_backticks_and_escaped_quotes_in_strings",
                  R"(Go: {"name": "w", "arguments": {"q": "say \"}\" )"
                  R"(```{\\\"", "r": "{[``"}} end)",
                  {{"w", R"({"q":"say \"}\" ```{\\\"","r":"{[``"})",
                    "bare_object"}},
                  1},
        FoundCase{"braces_and_fences_inside_fenced_strings",
                  "```json\n{\"name\": \"w\", \"arguments\": {\"code\": "
                  "\"```js\\n}```{\"}}\n```",
                  {{"w", R"({"code":"```js\n}```{"})", "fenced_block"}}, 1},
        FoundCase{"inline_code_is_not_a_fence",
                  "Use `x` or ``y``: " + kWeather,
                  {{"get_weather", kWeatherArgs, "bare_object"}}, 1},
        FoundCase{"arguments_as_string",
                  R"({"name": "w", "arguments": "{\"x\": [1, 2]}"})",
                  {{"w", R"({"x":[1,2]})", "bare_object"}}, 1},
        // Line endings and markdown containers, read as CommonMark does.
        FoundCase{"lone_cr_line_endings",
                  "Calling:\r```json\r" + kWeather + "\r```\r",
                  {{"get_weather", kWeatherArgs, "fenced_block"}}, 1},
        FoundCase{"example_in_an_html_comment_before_the_call",
                  "<!-- example:\n```json\n" + kRm + "\n```\n-->\n```json\n" +
                      kWeather + "\n```\n",
                  {{"get_weather", kWeatherArgs, "fenced_block"}}, 1},
        FoundCase{"call_in_a_list_item",
                  "Steps:\n- fetch the weather\n\n  ```json\n  " + kWeather +
                      "\n  ```\n",
                  {{"get_weather", kWeatherArgs, "fenced_block"}}, 1},
        FoundCase{"think_lines_then_a_fenced_call",
                  "<think>\nThe user wants weather.\n</think>\n```json\n" +
                      kWeather + "\n```",
                  {{"get_weather", kWeatherArgs, "fenced_block"}}, 1},
        // Plain runs are passed at once: what follows them on the same
        // line, and the next line's start, are still read.
        FoundCase{"react_after_plain_lines_and_inline_think",
                  "Plain words.\r\nMore words <think>" + kRm +
                      "</think> after\rAction: get_weather\r\n"
                      "Action Input: {\"city\": \"Paris\"}",
                  {{"get_weather", kWeatherArgs, "react"}}, 1},
        FoundCase{"fence_after_a_plain_line_ending_in_cr",
                  "words words\r```json\n" + kWeather + "\n```",
                  {{"get_weather", kWeatherArgs, "fenced_block"}}, 1},
        FoundCase{"prose_and_quote_after_the_call",
                  "```json\n" + kWeather + "\n```\n> Waiting for it.\n- ok\n",
                  {{"get_weather", kWeatherArgs, "fenced_block"}}, 1}),
    [](const testing::TestParamInfo<FoundCase>& info) {
      return info.param.name;
    });

struct RepairCase {
  std::string name;
  std::string text;
  std::string strict_code;
  Call call;
  std::vector<std::string> repairs;
};

void PrintTo(const RepairCase& c, std::ostream* os) { *os << c.name; }

class RepairedOnlyUnderSyntaxRepair : public testing::TestWithParam<RepairCase> {
};

TEST_P(RepairedOnlyUnderSyntaxRepair, ListsRepairs) {
  const RepairCase& c = GetParam();
  ExtractionResult strict = ExtractToolCalls(c.text, RepairPolicy::kStrict);
  EXPECT_FALSE(strict.ok());
  EXPECT_EQ(strict.error.code, c.strict_code) << strict.error.message;
  EXPECT_THAT(strict.calls, IsEmpty());
  ExtractionResult repaired =
      ExtractToolCalls(c.text, RepairPolicy::kSyntaxRepair);
  ExpectCalls(repaired, {c.call}, 1);
  if (repaired.ok()) {
    EXPECT_THAT(repaired.calls[0].repairs, ElementsAreArray(c.repairs));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, RepairedOnlyUnderSyntaxRepair,
    testing::Values(
        RepairCase{"single_quotes_in_tag",
                   "<tool_call>{'name': 'w', 'arguments': {'q': 'a'}}"
                   "</tool_call>",
                   "invalid_json", {"w", R"({"q":"a"})", "tool_call_tag"},
                   {"single_quotes"}},
        RepairCase{"trailing_comma_in_fence",
                   "```json\n{\"name\": \"w\", \"arguments\": {\"q\": 1,},}\n```",
                   "invalid_json", {"w", R"({"q":1})", "fenced_block"},
                   {"trailing_comma"}},
        RepairCase{"python_literals_in_bare_object",
                   R"(Call {"name": "w", "arguments": {"a": True, "b": None}})",
                   "invalid_json",
                   {"w", R"({"a":true,"b":null})", "bare_object"},
                   {"python_literal"}},
        RepairCase{"unquoted_keys_in_react",
                   "Action: w\nAction Input: {city: \"Paris\"}",
                   "invalid_json", {"w", kWeatherArgs, "react"},
                   {"unquoted_key"}},
        RepairCase{"markdown_fence_inside_tag",
                   "<tool_call>\n```json\n" + kWeather + "\n```\n</tool_call>",
                   "invalid_json",
                   {"get_weather", kWeatherArgs, "tool_call_tag"},
                   {"markdown_fence"}},
        RepairCase{"smart_quotes_in_bare_object",
                   "Call \u201Cname\u201D: no. {\u201Cname\u201D: \u201Cw\u201D, "
                   "\u201Carguments\u201D: {}}",
                   "invalid_json", {"w", "{}", "bare_object"},
                   {"smart_quotes"}},
        RepairCase{"comment_in_fence",
                   "```\n{\"name\": \"w\", // the tool\n \"arguments\": {}}\n```",
                   "invalid_json", {"w", "{}", "fenced_block"}, {"comment"}},
        RepairCase{"raw_newline_in_string",
                   "<tool_call>{\"name\": \"w\", \"arguments\": {\"t\": "
                   "\"a\nb\"}}</tool_call>",
                   "invalid_json", {"w", R"({"t":"a\nb"})", "tool_call_tag"},
                   {"control_character"}}),
    [](const testing::TestParamInfo<RepairCase>& info) {
      return info.param.name;
    });

struct FailCase {
  std::string name;
  std::string text;
  std::string code;
  std::string pointer;
  int call_index;
};

void PrintTo(const FailCase& c, std::ostream* os) { *os << c.name; }

class Fails : public testing::TestWithParam<FailCase> {};

TEST_P(Fails, UnderBothPoliciesWithACode) {
  const FailCase& c = GetParam();
  for (RepairPolicy policy :
       {RepairPolicy::kStrict, RepairPolicy::kSyntaxRepair}) {
    ExtractionResult r = ExtractToolCalls(c.text, policy);
    EXPECT_FALSE(r.ok());
    EXPECT_THAT(r.calls, IsEmpty());
    EXPECT_EQ(r.error.code, c.code) << r.error.message;
    EXPECT_EQ(r.error.pointer, c.pointer) << r.error.message;
    EXPECT_EQ(r.error.call_index, c.call_index);
    EXPECT_FALSE(r.error.message.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, Fails,
    testing::Values(
        FailCase{"empty", "", "no_tool_call", "", -1},
        FailCase{"prose", "I can't help with that {sorry}.", "no_tool_call",
                 "", -1},
        FailCase{"call_only_inside_reasoning",
                 "<think>" + kRm + "</think>Done.", "no_tool_call", "", -1},
        FailCase{"unclosed_final_fence_never_falls_back",
                 "```json\n" + kWeather + "\n```\nBetter:\n```json\n" +
                     R"({"name": "w")",
                 "truncated_output", "", -1},
        FailCase{"unclosed_fence_of_any_language",
                 "```json\n" + kWeather + "\n```\n```python\nx = 1",
                 "truncated_output", "", -1},
        FailCase{"unclosed_tag", "<tool_call>" + kWeather, "truncated_output",
                 "", -1},
        FailCase{"second_parallel_tag_cut",
                 "<tool_call>" + kWeather + "</tool_call><tool_call>{\"na",
                 "truncated_output", "", -1},
        FailCase{"partial_tag_at_end",
                 "<tool_call>" + kWeather + "</tool_call>\n<tool_c",
                 "truncated_output", "", -1},
        FailCase{"partial_fence_at_end", "```json\n" + kWeather + "\n```\n``",
                 "truncated_output", "", -1},
        FailCase{"unclosed_think", kWeather + "\n<think>Now let me",
                 "truncated_output", "", -1},
        FailCase{"bare_object_cut", R"(Calling {"name": "w", "arguments": {)",
                 "truncated_output", "", -1},
        FailCase{"string_cut", R"({"name": "w", "arguments": {"q": "ab)",
                 "truncated_output", "", -1},
        FailCase{"react_cut", "Action: w\nAction Input: {\"q\": 1",
                 "truncated_output", "", -1},
        FailCase{"react_input_missing_at_end", "Action: w\n",
                 "truncated_output", "", -1},
        FailCase{"invalid_last_fence_hides_nothing",
                 "```json\n" + kWeather + "\n```\n```json\n" +
                     R"({"name": "w", "arguments": {]})" + "\n```",
                 "invalid_json", "/arguments", 0},
        FailCase{"duplicate_key", R"({"name":"w","arguments":{"x":1,"x":2}})",
                 "duplicate_key", "/arguments/x", 0},
        FailCase{"wrong_keys", R"({"tool": "w", "args": {}})",
                 "not_a_tool_call", "/args", 0},
        FailCase{"extra_member",
                 R"({"name": "w", "arguments": {}, "id": "1"})",
                 "not_a_tool_call", "/id", 0},
        FailCase{"name_not_string", R"({"name": 7, "arguments": {}})",
                 "not_a_tool_call", "/name", 0},
        FailCase{"empty_name", R"({"name": "", "arguments": {}})",
                 "not_a_tool_call", "/name", 0},
        FailCase{"missing_arguments", R"({"name": "w"})", "not_a_tool_call",
                 "/arguments", 0},
        FailCase{"arguments_array", R"({"name": "w", "arguments": [1]})",
                 "not_a_tool_call", "/arguments", 0},
        FailCase{"arguments_string_empty", R"({"name": "w", "arguments": ""})",
                 "invalid_json", "/arguments", 0},
        FailCase{"arguments_string_not_object",
                 R"({"name": "w", "arguments": "[1]"})", "not_a_tool_call",
                 "/arguments", 0},
        FailCase{"arguments_string_duplicate",
                 R"({"name": "w", "arguments": "{\"a\":1,\"a\":2}"})",
                 "duplicate_key", "/arguments/a", 0},
        FailCase{"array_of_calls", "[" + kWeather + ", " + kRm + "]",
                 "not_a_tool_call", "", 0},
        FailCase{"later_non_call_object_is_authoritative",
                 kWeather + R"( and it returns {"temp": 20})",
                 "not_a_tool_call", "/temp", 0},
        FailCase{"react_without_input",
                 "Action: w\nI changed my mind.", "not_a_tool_call", "", 0},
        // Found by call_gate_fuzzer: the name reached a JSON dump, which
        // threw, and the engine answered INTERNAL.
        FailCase{"react_name_not_utf8",
                 "Action: get\xA0\xA0weather\nAction Input: {}",
                 "not_a_tool_call", "", 0},
        FailCase{"react_name_truncated_sequence",
                 "Action: get\xE2\x82\nAction Input: {}", "not_a_tool_call",
                 "", 0},
        FailCase{"react_input_not_object", "Action: w\nAction Input: \"cats\"",
                 "not_a_tool_call", "", 0},
        FailCase{"broken_second_parallel_call",
                 "<tool_call>" + kWeather + "</tool_call><tool_call>" +
                     R"({"name": "w", "arguments": 3})" + "</tool_call>",
                 "not_a_tool_call", "/arguments", 1},
        FailCase{"object_abandoned_at_a_tag",
                 "{\"name\": \"w\" <think>x</think>\n", "invalid_json", "", 0},
        FailCase{"code_block_after_the_call",
                 "{\"name\": \"w\", \"arguments\": {}}\n```python\nx\n```\n",
                 "trailing_code_block", "", -1},
        FailCase{"jsonc_block_after_example",
                 "```json\n{\"name\":\"w\",\"arguments\":{}}\n```\n"
                 "```jsonc\n{\"name\":\"v\",\"arguments\":{}}\n```\n",
                 "trailing_code_block", "", -1},
        FailCase{"too_large", std::string(200001, ' '), "input_too_large", "",
                 -1},
        // A code block hidden from a line-feed-only reader, or sitting in a
        // container or HTML comment, still follows the call.
        FailCase{"python_block_behind_a_lone_cr",
                 kWeather + "\rNow:\r```python\rimport os\r```\r",
                 "trailing_code_block", "", -1},
        FailCase{"fenced_call_then_python_block_behind_a_lone_cr",
                 "```json\n" + kWeather + "\n```\rthen\r```python\rx\r```",
                 "trailing_code_block", "", -1},
        FailCase{"call_then_a_call_in_an_html_comment",
                 "```json\n" + kWeather + "\n```\n<!--\n```json\n" + kRm +
                     "\n```\n-->\n",
                 "trailing_code_block", "", -1},
        FailCase{"call_only_in_an_html_comment",
                 "<!--\n```json\n" + kRm + "\n```\n-->\n", "no_tool_call", "",
                 -1},
        FailCase{"block_quote_fence_after_the_call",
                 kWeather + "\n> ```python\n> x\n> ```\n", "trailing_code_block",
                 "", -1},
        FailCase{"list_item_fence_after_the_call",
                 kWeather + "\n1. ```python\n   x\n2. done\n",
                 "trailing_code_block", "", -1}),
    [](const testing::TestParamInfo<FailCase>& info) {
      return info.param.name;
    });

TEST(Extract, InputCapIsConfigurable) {
  ExtractLimits limits;
  limits.max_input_bytes = 10;
  EXPECT_EQ(ExtractToolCalls(kWeather, RepairPolicy::kStrict, limits)
                .error.code,
            "input_too_large");
}

TEST(Extract, ArgumentsStringIsReported) {
  ExtractionResult r = ExtractToolCalls(R"({"name":"w","arguments":"{}"})");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.calls[0].arguments_was_string);
  EXPECT_EQ(r.calls[0].arguments, Json::object());
}

// Text alone cannot tell output that ended after a complete call from
// output cut off there; the finish reason must decide (see extract.h).
TEST(Extract, CutBetweenParallelTagsIsTheDocumentedAmbiguity) {
  const std::string one = "<tool_call>" + kWeather + "</tool_call>\n";
  ExtractionResult r = ExtractToolCalls(one);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(ExtractToolCalls(one + "<").error.code, "truncated_output");
  EXPECT_EQ(ExtractToolCalls(one + "<tool_call").error.code,
            "truncated_output");
}

TEST(Extract, LinearOnAdversarialText) {
  const size_t n = 190000;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {std::string(n, '{') + ".", "no_tool_call"},
      {std::string(n, '{'), "truncated_output"},  // May be a cut-off call.
      {"{\"a\": " + std::string(n, '{'), "truncated_output"},
      {std::string(n / 2, '[') + std::string(n / 2, ' '), "no_tool_call"},
      {"Action: x\n" + std::string(n, '\n'), "truncated_output"},
      {std::string(n / 10, '\n') + "Action: x\n" + std::string(n / 2, ' '),
       "truncated_output"},
      {"<tool_call>" + std::string(n, '"'), "truncated_output"},
  };
  for (const auto& [text, code] : cases) {
    EXPECT_EQ(ExtractToolCalls(text).error.code, code) << text.substr(0, 20);
  }
  std::string lines;
  while (lines.size() < n) lines += "```\n{x}\n```\n";
  EXPECT_EQ(ExtractToolCalls(lines).error.code, "invalid_json");
  // Objects abandoned at fence lines, again and again.
  std::string abandoned;
  while (abandoned.size() < n) abandoned += "{\"a\": [\n```\n1\n```\n";
  ExtractionResult r = ExtractToolCalls(abandoned);
  EXPECT_EQ(r.error.code, "not_a_tool_call");
  EXPECT_GT(r.candidates_seen, 20000);
}

}  // namespace
}  // namespace extract
}  // namespace toolgate
