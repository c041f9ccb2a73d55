#include "core/verdict/verdict.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace verdict {
namespace {

using repair::RepairPolicy;
using ::testing::ElementsAreArray;
using ::testing::IsEmpty;

std::string Block(const std::string& json) {
  return "```json\n" + json + "\n```\n";
}
const std::string kPass = R"({"verdict": "pass", "reason": "tests green"})";
const std::string kFail = R"({"verdict": "fail", "reason": "2 tests red"})";
const std::string kPassJson = R"({"reason":"tests green","verdict":"pass"})";
const std::string kFailJson = R"({"reason":"2 tests red","verdict":"fail"})";

struct Case {
  std::string name;
  std::string envelope;
  std::string outcome;      // OutcomeName.
  std::string stop_reason;  // "" unless CONTRACT_STOP.
  std::string result_json;  // "" on CONTRACT_STOP.
  int blocks_found;
  RepairPolicy policy = RepairPolicy::kStrict;
  std::vector<std::string> repairs = {};
  // Pointer of the first violation; "none" when there must be none.
  std::string violation_pointer = "none";
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class DefaultSchema : public testing::TestWithParam<Case> {};

TEST_P(DefaultSchema, Outcome) {
  const Case& c = GetParam();
  absl::StatusOr<VerdictResult> r = ExtractVerdict(c.envelope, "", c.policy);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(OutcomeName(r->outcome), c.outcome) << r->message;
  EXPECT_EQ(r->stop_reason, c.stop_reason) << r->message;
  EXPECT_EQ(r->result_json, c.result_json);
  EXPECT_EQ(r->blocks_found, c.blocks_found);
  EXPECT_THAT(r->repairs, ElementsAreArray(c.repairs));
  EXPECT_FALSE(r->message.empty() && !c.stop_reason.empty());
  if (c.violation_pointer == "none") {
    EXPECT_THAT(r->violations, IsEmpty());
  } else {
    ASSERT_FALSE(r->violations.empty());
    EXPECT_EQ(r->violations[0].instance_pointer, c.violation_pointer);
  }
  if (r->outcome == Outcome::kContractStop) {
    EXPECT_TRUE(r->result.is_null());
  } else {
    EXPECT_EQ(CanonicalJson(r->result), c.result_json);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, DefaultSchema,
    testing::Values(
        Case{"pass", "Done.\n" + Block(kPass), "PASS", "", kPassJson, 1},
        Case{"fail", Block(kFail), "FAIL", "", kFailJson, 1},
        Case{"refused", Block(R"({"verdict":"refused","reason":"unsafe"})"),
             "REFUSED", "", R"({"reason":"unsafe","verdict":"refused"})", 1},
        Case{"optional_fields",
             Block(R"({"verdict":"pass","reason":"ok","evidence":["a.log"],)"
                   R"("confidence":0.5})"),
             "PASS", "",
             R"({"confidence":0.5,"evidence":["a.log"],"reason":"ok",)"
             R"("verdict":"pass"})",
             1},
        Case{"decoys_before_the_real_block",
             "Example:\n" + Block(kPass) + "Another:\n" + Block(kPass) +
                 "Real:\n" + Block(kFail),
             "FAIL", "", kFailJson, 3},
        Case{"raw_object_after_last_block_is_not_read",
             Block(kFail) + "\nActually: " + kPass + "\n", "FAIL", "",
             kFailJson, 1},
        Case{"raw_object_alone_is_no_block", kPass, "CONTRACT_STOP",
             "no_result_block", "", 0},
        Case{"inline_backticks_in_a_string",
             Block(R"({"verdict": "pass", "reason": "ran ```make``` and `ls`"})"),
             "PASS", "", R"({"reason":"ran ```make``` and `ls`","verdict":"pass"})",
             1},
        Case{"crlf", "Summary\r\n```json\r\n" + kPass + "\r\n```\r\n", "PASS",
             "", kPassJson, 1},
        Case{"tilde_fence", "~~~json\n" + kFail + "\n~~~", "FAIL", "",
             kFailJson, 1},
        Case{"no_info_string", "```\n" + kPass + "\n```", "PASS", "",
             kPassJson, 1},
        // A later block of another kind may be the real answer (```jsonc):
        // the earlier block is never read as the result in its place.
        Case{"blank_reason_is_no_reason",
             Block(R"({"verdict":"pass","reason":" \t "})"), "CONTRACT_STOP",
             "result_block_invalid", "", 1, RepairPolicy::kStrict, {},
             "/reason"},
        // A reason needs a visible character: invisible format characters,
        // controls and NUL are no reason either.
        Case{"zero_width_space_reason_is_no_reason",
             Block(R"({"verdict":"pass","reason":"\u200b"})"), "CONTRACT_STOP",
             "result_block_invalid", "", 1, RepairPolicy::kStrict, {},
             "/reason"},
        Case{"nul_reason_is_no_reason",
             Block(R"({"verdict":"pass","reason":"\u0000"})"), "CONTRACT_STOP",
             "result_block_invalid", "", 1, RepairPolicy::kStrict, {},
             "/reason"},
        Case{"invisible_and_control_reason_is_no_reason",
             Block(R"({"verdict":"pass","reason":"\ufeff\u2060 \u200d\u0007\u00ad\u3164\u180e\t"})"),
             "CONTRACT_STOP", "result_block_invalid", "", 1,
             RepairPolicy::kStrict, {}, "/reason"},
        Case{"visible_character_among_invisible_ones_is_a_reason",
             Block(R"({"verdict":"pass","reason":"\u200bok"})"), "PASS", "",
             "{\"reason\":\"\xe2\x80\x8bok\",\"verdict\":\"pass\"}", 1},
        Case{"non_latin_reason_is_a_reason",
             Block("{\"verdict\":\"pass\",\"reason\":\"\xe9\x80\x9a\xe8\xbf\x87\"}"),
             "PASS", "",
             "{\"reason\":\"\xe9\x80\x9a\xe8\xbf\x87\",\"verdict\":\"pass\"}", 1},
        Case{"later_non_json_block_stops",
             Block(kPass) + "```bash\nmake test\n```\n", "CONTRACT_STOP",
             "result_block_not_last", "", 1},
        Case{"later_jsonc_block_stops",
             Block(kPass) + "```jsonc\n" + kFail + "\n```\n", "CONTRACT_STOP",
             "result_block_not_last", "", 1},
        Case{"later_indented_fence_stops",
             Block(kPass) + "    ```json\n    " + kFail + "\n    ```\n",
             "CONTRACT_STOP", "result_block_not_last", "", 1},
        Case{"later_block_in_reasoning_stops",
             Block(kPass) + "<think>\n" + Block(kFail) + "</think>\n",
             "CONTRACT_STOP", "result_block_not_last", "", 1},
        Case{"think_blocks_are_reasoning",
             "<think>" + Block(kPass) + "</think>\n" + Block(kFail), "FAIL", "",
             kFailJson, 1},
        Case{"block_only_in_reasoning",
             "<think>" + Block(kPass) + "</think>\nAll good.", "CONTRACT_STOP",
             "no_result_block", "", 0},
        Case{"unclosed_reasoning", Block(kPass) + "<think>hmm",
             "CONTRACT_STOP", "unclosed_reasoning", "", 1},
        Case{"no_block", "All good, verdict: pass", "CONTRACT_STOP",
             "no_result_block", "", 0},
        Case{"unclosed_final_fence",
             Block(kPass) + "```json\n{\"verdict\": \"fail\"", "CONTRACT_STOP",
             "unclosed_result_block", "", 1},
        Case{"unclosed_fence_of_any_language", Block(kPass) + "```python\nx",
             "CONTRACT_STOP", "unclosed_result_block", "", 1},
        Case{"partial_fence_at_end", Block(kPass) + "``", "CONTRACT_STOP",
             "unclosed_result_block", "", 1},
        Case{"empty_block", Block(kPass) + "```json\n  \n```", "CONTRACT_STOP",
             "empty_result_block", "", 2},
        Case{"empty_block_no_lines", "```json\n```", "CONTRACT_STOP",
             "empty_result_block", "", 1},
        Case{"truncated_block", Block(R"({"verdict": "pass", "reason": "x")"),
             "CONTRACT_STOP", "truncated_result_block", "", 1},
        Case{"unparseable_block", Block(R"({verdict: pass})"),
             "CONTRACT_STOP", "unparseable_result_block", "", 1},
        Case{"duplicate_key",
             Block(R"({"verdict":"fail","verdict":"pass","reason":"x"})"),
             "CONTRACT_STOP", "duplicate_key", "", 1},
        Case{"verdict_upper_case", Block(R"({"verdict":"PASS","reason":"x"})"),
             "CONTRACT_STOP", "result_block_invalid", "", 1,
             RepairPolicy::kStrict, {}, "/verdict"},
        Case{"verdict_passed", Block(R"({"verdict":"passed","reason":"x"})"),
             "CONTRACT_STOP", "result_block_invalid", "", 1,
             RepairPolicy::kStrict, {}, "/verdict"},
        Case{"verdict_true", Block(R"({"verdict":true,"reason":"x"})"),
             "CONTRACT_STOP", "result_block_invalid", "", 1,
             RepairPolicy::kStrict, {}, "/verdict"},
        Case{"verdict_null", Block(R"({"verdict":null,"reason":"x"})"),
             "CONTRACT_STOP", "result_block_invalid", "", 1,
             RepairPolicy::kStrict, {}, "/verdict"},
        Case{"missing_verdict", Block(R"({"reason":"x"})"), "CONTRACT_STOP",
             "result_block_invalid", "", 1, RepairPolicy::kStrict, {}, ""},
        Case{"unknown_member",
             Block(R"({"verdict":"fail","reason":"x","override":"pass"})"),
             "CONTRACT_STOP", "result_block_invalid", "", 1,
             RepairPolicy::kStrict, {}, "/override"},
        Case{"not_an_object", Block(R"(["pass"])"), "CONTRACT_STOP",
             "result_block_invalid", "", 1, RepairPolicy::kStrict, {}, ""},
        Case{"oversize", Block(kPass) + std::string(200000, ' '),
             "CONTRACT_STOP", "envelope_too_large", "", 0},
        Case{"repaired_under_syntax_repair",
             Block("{'verdict': 'pass', 'reason': 'ok',}"), "PASS", "",
             R"({"reason":"ok","verdict":"pass"})", 1,
             RepairPolicy::kSyntaxRepair, {"single_quotes", "trailing_comma"}},
        Case{"not_repaired_under_strict",
             Block("{'verdict': 'pass', 'reason': 'ok'}"), "CONTRACT_STOP",
             "unparseable_result_block", "", 1},
        Case{"repair_never_closes_truncation",
             Block("{'verdict': 'pass', 'reason': 'ok'"), "CONTRACT_STOP",
             "truncated_result_block", "", 1, RepairPolicy::kSyntaxRepair},
        // The block toolgate takes is the one CommonMark shows last, or the
        // answer is a stop (findings: HTML comments, lone "\r", containers).
        Case{"block_in_html_comment_after_the_real_block_stops",
             Block(kFail) + "<!--\n" + Block(kPass) + "-->\n",
             "CONTRACT_STOP", "result_block_not_last", "", 1},
        Case{"block_in_html_comment_alone_is_no_block",
             "<!--\n" + Block(kPass) + "-->\n", "CONTRACT_STOP",
             "no_result_block", "", 0},
        Case{"block_in_html_block_is_no_block", "<div>\n" + Block(kPass),
             "CONTRACT_STOP", "no_result_block", "", 0},
        Case{"block_swallowed_by_a_list_item_fence_is_no_block",
             "- ```\n  ```json\n  " + kPass + "\n  ```\n", "CONTRACT_STOP",
             "no_result_block", "", 0},
        Case{"lone_cr_does_not_hide_a_later_fail_block",
             Block(kPass) + "Second thoughts.\r```json\r" + kFail + "\r```\r",
             "FAIL", "", kFailJson, 2},
        Case{"lone_cr_does_not_hide_a_later_python_block",
             Block(kPass) + "Ran:\r```python\rprint(1)\r```\r",
             "CONTRACT_STOP", "result_block_not_last", "", 1},
        Case{"lone_cr_does_not_hide_a_closing_fence",
             "```json\r" + kPass + "\r```\rtext```\n", "PASS", "", kPassJson,
             1},
        Case{"block_quote_fence_after_the_block_stops",
             Block(kPass) + "> ```json\n> " + kFail + "\n> ```\n",
             "CONTRACT_STOP", "result_block_not_last", "", 1},
        Case{"list_item_fence_after_the_block_stops",
             Block(kPass) + "1. ```json\n   " + kFail + "\n2. done\n",
             "CONTRACT_STOP", "result_block_not_last", "", 1},
        Case{"fence_inside_a_later_html_comment_stops",
             Block(kPass) + "<!--\n```python\nprint(1)\n```\n-->\n",
             "CONTRACT_STOP", "result_block_not_last", "", 1},
        // Reasoning is taken out before the CommonMark reading: a <think>
        // line is no HTML block swallowing the answer, and a fence left
        // open inside reasoning does not run over it.
        Case{"think_lines_then_the_block",
             "<think>\nchecking\n</think>\n" + Block(kPass), "PASS", "",
             kPassJson, 1},
        Case{"open_fence_inside_reasoning",
             "<think>\n```\n</think>\n" + Block(kFail), "FAIL", "", kFailJson,
             1},
        // Benign neighbours.
        Case{"lone_cr_envelope", "Summary\r```json\r" + kPass + "\r```\r",
             "PASS", "", kPassJson, 1},
        Case{"html_comment_with_a_block_before_the_real_block",
             "<!-- draft:\n" + Block(kFail) + "-->\n" + Block(kPass), "PASS",
             "", kPassJson, 1},
        Case{"prose_and_quote_after_the_block",
             Block(kPass) + "That is all.\n> noted\n- done\n", "PASS", "",
             kPassJson, 1},
        Case{"checklist_before_the_block",
             "- [x] tests\n- [x] lint\n\n" + Block(kPass), "PASS", "",
             kPassJson, 1},
        Case{"block_in_a_list_item",
             "Checks:\n1. ran the tests\n\n   ```json\n   " + kPass +
                 "\n   ```\n",
             "PASS", "", kPassJson, 1},
        Case{"crlf_with_comment_and_list",
             "<!-- x -->\r\n- a\r\n\r\n```json\r\n" + kPass + "\r\n```\r\n",
             "PASS", "", kPassJson, 1}),
    [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

TEST(Verdict, MissingVerdictIsNamedInViolations) {
  absl::StatusOr<VerdictResult> r =
      ExtractVerdict(Block(R"({"reason":"x"})"), "", RepairPolicy::kStrict);
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->violations.empty());
  EXPECT_EQ(r->violations[0].keyword, "required");
}

TEST(Verdict, CustomSchemaCannotMakeOtherValuesAVerdict) {
  const std::string lax =
      R"({"type":"object","properties":{"verdict":{"type":"string"}}})";
  for (const std::string& block :
       {R"({"verdict":"PASS"})", R"({"verdict":"ok"})", R"({"other":1})"}) {
    absl::StatusOr<VerdictResult> r =
        ExtractVerdict(Block(block), lax, RepairPolicy::kStrict);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->outcome, Outcome::kContractStop) << block;
    EXPECT_EQ(r->stop_reason, "result_block_invalid");
    ASSERT_EQ(r->violations.size(), 1u);
    EXPECT_EQ(r->violations[0].instance_pointer, "/verdict");
  }
  absl::StatusOr<VerdictResult> r =
      ExtractVerdict(Block(R"("pass")"), "true", RepairPolicy::kStrict);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stop_reason, "result_block_invalid");
}

TEST(Verdict, CustomSchemaIsEnforced) {
  const std::string schema =
      R"({"type":"object","required":["verdict","score"],)"
      R"("properties":{"score":{"type":"integer","minimum":0}}})";
  absl::StatusOr<VerdictResult> r = ExtractVerdict(
      Block(R"({"verdict":"pass","score":3})"), schema, RepairPolicy::kStrict);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outcome, Outcome::kPass);
  EXPECT_EQ(r->result_json, R"({"score":3,"verdict":"pass"})");
  r = ExtractVerdict(Block(R"({"verdict":"pass","score":-1})"), schema,
                     RepairPolicy::kStrict);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stop_reason, "result_block_invalid");
  ASSERT_FALSE(r->violations.empty());
  EXPECT_EQ(r->violations[0].instance_pointer, "/score");
}

TEST(Verdict, BadResultSchemaIsTheCallersError) {
  for (const std::string& schema :
       {std::string("{not json"), std::string(R"({"type": 5})"),
        std::string(R"({"a":1,"a":2})")}) {
    absl::StatusOr<VerdictResult> r =
        ExtractVerdict(Block(kPass), schema, RepairPolicy::kStrict);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument)
        << schema;
  }
}

TEST(Verdict, DefaultSchemaIsEmbeddedAndCompiles) {
  absl::StatusOr<Json> text = ParseStrictJson(DefaultResultSchemaJson());
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ((*text)["$schema"],
            "https://json-schema.org/draft/2020-12/schema");
  EXPECT_EQ((*text)["required"], Json::array({"verdict", "reason"}));
  EXPECT_EQ((*text)["additionalProperties"], false);
  EXPECT_TRUE(DefaultResultSchema().ok());
  EXPECT_TRUE(CompileResultSchema("  ").ok());
}

TEST(Verdict, EnvelopeCapIsConfigurable) {
  absl::StatusOr<std::shared_ptr<const schema::Schema>> schema =
      DefaultResultSchema();
  ASSERT_TRUE(schema.ok());
  VerdictLimits limits;
  limits.max_envelope_bytes = 10;
  VerdictResult r =
      ExtractVerdict(Block(kPass), **schema, RepairPolicy::kStrict, limits);
  EXPECT_EQ(r.stop_reason, "envelope_too_large");
}

}  // namespace
}  // namespace verdict
}  // namespace toolgate
