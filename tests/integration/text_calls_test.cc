// Tool calls written in text, through the real server: every accepted
// format round-trips to ALLOW with the exact arguments, damage is repaired
// only under SYNTAX_REPAIR, and cut-off output never executes.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/server_fixture.h"

namespace toolgate {
namespace {

using ::testing::ElementsAreArray;

constexpr char kArgs[] = R"({"priority":"urgent","ticket_id":"TCK-004242"})";
const std::string kCall =
    std::string(R"({"name":"update_ticket","arguments":)") + kArgs + "}";

class TextCallsTest : public testutil::ServerFixture {
 protected:
  v1::ValidateToolCallResponse ValidateText(const std::string& text,
                                            v1::RepairPolicy repair) {
    v1::ValidateToolCallRequest req;
    req.set_snapshot_id(SnapshotNamed("tickets"));
    req.set_text(text);
    req.set_repair(repair);
    v1::ValidateToolCallResponse resp;
    grpc::Status s = Validate(req, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp;
  }
};

struct Format {
  std::string name;
  std::string text;
  std::string source;
};

class TextFormats : public TextCallsTest,
                    public ::testing::WithParamInterface<Format> {};

TEST_P(TextFormats, RoundTripToAllowWithExactArguments) {
  for (v1::RepairPolicy policy :
       {v1::REPAIR_POLICY_STRICT, v1::REPAIR_POLICY_SYNTAX_REPAIR}) {
    v1::ValidateToolCallResponse r = ValidateText(GetParam().text, policy);
    ASSERT_EQ(r.decision(), v1::DECISION_ALLOW) << r.DebugString();
    ASSERT_EQ(r.calls_size(), 1);
    EXPECT_EQ(r.calls(0).name(), "update_ticket");
    EXPECT_EQ(r.calls(0).arguments_json(), kArgs);
    EXPECT_EQ(r.calls(0).source(), GetParam().source);
    EXPECT_EQ(r.calls(0).repairs_size(), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, TextFormats,
    ::testing::Values(
        Format{"tag", "<tool_call>\n" + kCall + "\n</tool_call>",
               "tool_call_tag"},
        Format{"backtick_fence", "Calling it:\n```json\n" + kCall + "\n```\n",
               "fenced_block"},
        Format{"tilde_fence_no_info", "~~~\n" + kCall + "\n~~~",
               "fenced_block"},
        Format{"upper_case_info", "```JSON\n" + kCall + "\n```",
               "fenced_block"},
        Format{"react",
               "Thought: raise it\nAction: update_ticket\nAction Input: " +
                   std::string(kArgs),
               "react"},
        Format{"bare_object_in_prose",
               "Sure {not json} I will now run " + kCall + " and report back.",
               "bare_object"},
        Format{
            "string_arguments",
            R"({"name":"update_ticket","arguments":"{\"ticket_id\":\"TCK-004242\",\"priority\":\"urgent\"}"})",
            "bare_object"},
        Format{"example_in_reasoning_then_real",
               "<think>An example: {\"name\":\"update_ticket\",\"arguments\":"
               "{\"ticket_id\":\"TCK-000001\",\"priority\":\"low\"}}</think>\n"
               "```json\n" +
                   kCall + "\n```",
               "fenced_block"},
        Format{"earlier_fence_is_scratchpad",
               "```json\n{\"name\":\"update_ticket\",\"arguments\":{}}\n```\n"
               "Final:\n```json\n" +
                   kCall + "\n```",
               "fenced_block"},
        Format{"braces_and_backticks_in_strings",
               R"(```json
{"name":"update_ticket","arguments":{"ticket_id":"TCK-004242","priority":"urgent"}}
```)",
               "fenced_block"}),
    [](const ::testing::TestParamInfo<Format>& info) {
      return info.param.name;
    });

struct Damage {
  std::string name;
  std::string text;
  std::vector<std::string> repairs;
};

class DamagedCalls : public TextCallsTest,
                     public ::testing::WithParamInterface<Damage> {};

TEST_P(DamagedCalls, AllowOnlyUnderSyntaxRepairWithRepairsListed) {
  v1::ValidateToolCallResponse strict =
      ValidateText(GetParam().text, v1::REPAIR_POLICY_STRICT);
  EXPECT_EQ(strict.decision(), v1::DECISION_REJECT);
  v1::ValidateToolCallResponse repaired =
      ValidateText(GetParam().text, v1::REPAIR_POLICY_SYNTAX_REPAIR);
  ASSERT_EQ(repaired.decision(), v1::DECISION_ALLOW) << repaired.DebugString();
  EXPECT_EQ(repaired.calls(0).arguments_json(), kArgs);
  EXPECT_THAT(repaired.calls(0).repairs(),
              ElementsAreArray(GetParam().repairs));
}

INSTANTIATE_TEST_SUITE_P(
    Table, DamagedCalls,
    ::testing::Values(
        Damage{
            "trailing_comma",
            R"({"name":"update_ticket","arguments":{"ticket_id":"TCK-004242","priority":"urgent",},})",
            {"trailing_comma"}},
        Damage{
            "single_quotes",
            R"({'name':'update_ticket','arguments':{'ticket_id':'TCK-004242','priority':'urgent'}})",
            {"single_quotes"}},
        Damage{"smart_quotes",
               "{\xe2\x80\x9cname\xe2\x80\x9d:\xe2\x80\x9cupdate_"
               "ticket\xe2\x80\x9d,"
               "\"arguments\":{\"ticket_id\":\"TCK-004242\",\"priority\":"
               "\"urgent\"}}",
               {"smart_quotes"}},
        Damage{
            "unquoted_keys",
            R"({name:"update_ticket",arguments:{ticket_id:"TCK-004242",priority:"urgent"}})",
            {"unquoted_key"}},
        Damage{
            "comments",
            "{\"name\":\"update_ticket\", // the tool\n\"arguments\":{/* id */"
            "\"ticket_id\":\"TCK-004242\",\"priority\":\"urgent\"}}",
            {"comment"}}),
    [](const ::testing::TestParamInfo<Damage>& info) {
      return info.param.name;
    });

TEST_F(TextCallsTest, TruncationAtEveryByteNeverAllows) {
  const std::string full = "```json\n" + kCall + "\n```";
  for (size_t cut = 0; cut < full.size(); ++cut) {
    for (v1::RepairPolicy policy :
         {v1::REPAIR_POLICY_STRICT, v1::REPAIR_POLICY_SYNTAX_REPAIR}) {
      v1::ValidateToolCallResponse r =
          ValidateText(full.substr(0, cut), policy);
      EXPECT_NE(r.decision(), v1::DECISION_ALLOW) << "cut at " << cut;
    }
  }
  EXPECT_EQ(ValidateText(full, v1::REPAIR_POLICY_STRICT).decision(),
            v1::DECISION_ALLOW);
}

TEST_F(TextCallsTest, CutOffFinalFenceIsTruncatedOutput) {
  v1::ValidateToolCallResponse r = ValidateText(
      "```json\n" + kCall + "\n```\nAnd then:\n```json\n{\"name\":\"upd",
      v1::REPAIR_POLICY_SYNTAX_REPAIR);
  EXPECT_EQ(r.decision(), v1::DECISION_REJECT);
  EXPECT_EQ(r.violations(0).code(), "truncated_output");
}

// A lone "\r" ends a line for CommonMark: the ```python block after the
// call is a block the model wrote last, and the call may not be its answer.
TEST_F(TextCallsTest, CodeBlockBehindALoneCarriageReturnIsRejected) {
  for (const std::string& text :
       {kCall + "\rThen:\r```python\rimport os\r```\r",
        "```json\n" + kCall + "\n```\r```python\rx\r```",
        "```json\n" + kCall + "\n```\n<!--\n```json\n{}\n```\n-->\n"}) {
    for (v1::RepairPolicy policy :
         {v1::REPAIR_POLICY_STRICT, v1::REPAIR_POLICY_SYNTAX_REPAIR}) {
      v1::ValidateToolCallResponse r = ValidateText(text, policy);
      EXPECT_EQ(r.decision(), v1::DECISION_REJECT) << r.DebugString();
      ASSERT_GT(r.violations_size(), 0);
      EXPECT_EQ(r.violations(0).code(), "trailing_code_block");
    }
  }
  v1::ValidateToolCallResponse crlf = ValidateText(
      "Calling:\r\n```json\r\n" + kCall + "\r\n```\r\n",
      v1::REPAIR_POLICY_STRICT);
  EXPECT_EQ(crlf.decision(), v1::DECISION_ALLOW) << crlf.DebugString();
}

TEST_F(TextCallsTest, NoCallIsRejectedNeverAnEmptyAllow) {
  v1::ValidateToolCallResponse r =
      ValidateText("All done, nothing to change.", v1::REPAIR_POLICY_STRICT);
  EXPECT_EQ(r.decision(), v1::DECISION_REJECT);
  EXPECT_EQ(r.violations(0).code(), "no_tool_call");
  EXPECT_EQ(r.calls_size(), 0);
}

TEST_F(TextCallsTest, BreakerCountsUnparseableAndInvalidAlikeAcrossRuns) {
  const std::string snapshot = SnapshotNamed("tickets");
  v1::OpenRunResponse a = OpenRun(snapshot, 3);
  v1::OpenRunResponse b = OpenRun(snapshot, 3);
  auto text = [&](const v1::OpenRunResponse& run, const std::string& t) {
    v1::ValidateToolCallRequest req;
    req.set_run_id(run.run_id());
    req.set_run_token(run.run_token());
    req.set_text(t);
    v1::ValidateToolCallResponse resp;
    EXPECT_TRUE(Validate(req, &resp).ok());
    return resp;
  };
  const std::string invalid =
      R"({"name":"update_ticket","arguments":{"ticket_id":"TCK-004242","priority":"critial"}})";
  v1::ValidateToolCallResponse r1 = text(a, "no call here");
  EXPECT_EQ(r1.attempt(), 1);
  EXPECT_EQ(r1.attempts_left(), 2);
  v1::ValidateToolCallResponse r2 = text(a, invalid);
  EXPECT_EQ(r2.attempts_left(), 1);
  EXPECT_THAT(r2.repair_prompt(),
              ::testing::HasSubstr("\"received\":\"\\\"critial\\\"\""));
  EXPECT_THAT(r2.repair_prompt(), ::testing::HasSubstr("\"attempt\":\"2/3\""));
  EXPECT_EQ(text(a, "{\"name\":").attempts_left(), 0);
  v1::ValidateToolCallResponse stopped = text(a, kCall);
  EXPECT_EQ(stopped.decision(), v1::DECISION_STOP);
  EXPECT_EQ(stopped.stop_reason(), "misformat_circuit_open");
  EXPECT_EQ(text(b, kCall).decision(), v1::DECISION_ALLOW);  // Isolated.
  ResetRun(a);
  EXPECT_EQ(text(a, kCall).decision(), v1::DECISION_ALLOW);
}

}  // namespace
}  // namespace toolgate
