#include <string>
#include <vector>

#include "core/gate/calls.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

struct Case {
  std::string name;
  std::string native;
  // Expected top-level error code, or "" when calls are read.
  std::string error;
  // Per call: "source name canonical-args" or "!code pointer" for errors.
  std::vector<std::string> calls;
};

std::string Describe(const RawCall& c) {
  if (!c.error.ok()) return "!" + c.error.code + " " + c.error.pointer;
  return c.source + " " + c.name + " " + CanonicalJson(c.arguments);
}

class NativeCalls : public testing::TestWithParam<Case> {};

TEST_P(NativeCalls, ReadsExactlyWhatWasSent) {
  const Case& c = GetParam();
  RawCalls got = ReadNativeCalls(c.native, JsonLimits());
  EXPECT_EQ(got.error.code, c.error) << got.error.message;
  std::vector<std::string> described;
  for (const RawCall& call : got.calls) described.push_back(Describe(call));
  EXPECT_EQ(described, c.calls);
}

INSTANTIATE_TEST_SUITE_P(
    Table, NativeCalls,
    testing::Values(
        Case{"openai_message",
             R"({"role":"assistant","content":null,"tool_calls":[
               {"id":"c1","type":"function","function":{"name":"get_ticket",
                "arguments":"{\"ticket_id\": \"TCK-000001\"}"}}]})",
             "",
             {R"(openai_tool_calls get_ticket {"ticket_id":"TCK-000001"})"}},
        Case{
            "openai_bare_parallel",
            R"([{"id":"a","type":"function","function":{"name":"x","arguments":"{}"}},
                 {"id":"b","type":"function","function":{"name":"y","arguments":"{\"n\":1}"}}])",
            "",
            {"openai_tool_calls x {}", R"(openai_tool_calls y {"n":1})"}},
        Case{"openai_empty_arguments",
             R"([{"type":"function","function":{"name":"x","arguments":""}}])",
             "",
             {"!empty_arguments "}},
        Case{"openai_arguments_duplicate_key",
             R"([{"type":"function","function":{"name":"x",
                "arguments":"{\"a\":1,\"a\":2}"}}])",
             "",
             {"!duplicate_key /a"}},
        Case{
            "openai_arguments_truncated",
            R"([{"type":"function","function":{"name":"x","arguments":"{\"a\":"}}])",
            "",
            {"!truncated_json /a"}},
        Case{
            "openai_arguments_not_object",
            R"([{"type":"function","function":{"name":"x","arguments":"[1]"}}])",
            "",
            {"!arguments_not_object "}},
        Case{"openai_arguments_object_not_string",
             R"([{"type":"function","function":{"name":"x","arguments":{}}}])",
             "",
             {"!malformed_tool_call /0/function/arguments"}},
        Case{"openai_wrong_type",
             R"([{"type":"fn","function":{"name":"x","arguments":"{}"}}])",
             "",
             {"!malformed_tool_call /0/type"}},
        Case{"openai_no_tool_calls",
             R"({"role":"assistant","tool_calls":[]})",
             "no_tool_call",
             {}},
        Case{"openai_null_tool_calls",
             R"({"role":"assistant","content":"hi","tool_calls":null})",
             "no_tool_call",
             {}},
        Case{"anthropic_message",
             R"({"role":"assistant","content":[{"type":"text","text":"ok"},
               {"type":"tool_use","id":"t1","name":"get_ticket",
                "input":{"ticket_id":"TCK-000002"}}]})",
             "",
             {R"(anthropic_tool_use get_ticket {"ticket_id":"TCK-000002"})"}},
        Case{
            "anthropic_input_string",
            R"({"content":[{"type":"tool_use","id":"t","name":"x","input":"{}"}]})",
            "",
            {"!arguments_not_object "}},
        Case{"anthropic_missing_input",
             R"({"content":[{"type":"tool_use","id":"t","name":"x"}]})",
             "",
             {"!missing_arguments /content/0"}},
        Case{
            "anthropic_text_only",
            R"({"role":"assistant","content":[{"type":"text","text":"done"}]})",
            "no_tool_call",
            {}},
        Case{
            "mcp_params",
            R"({"name":"get_customer","arguments":{"customer_id":"CUS-000001"}})",
            "",
            {R"(mcp_call get_customer {"customer_id":"CUS-000001"})"}},
        Case{"mcp_no_arguments",
             R"({"name":"get_customer"})",
             "",
             {"!missing_arguments "}},
        Case{"mcp_name_not_string",
             R"({"name":7,"arguments":{}})",
             "",
             {"!malformed_tool_call /name"}},
        Case{"duplicate_key_envelope",
             R"({"name":"a","name":"b","arguments":{}})",
             "duplicate_key",
             {}},
        Case{"openai_and_anthropic_calls",
             R"({"role":"assistant","tool_calls":[{"type":"function",
               "function":{"name":"a","arguments":"{}"}}],
               "content":[{"type":"tool_use","id":"t","name":"b","input":{}}]})",
             "ambiguous_output",
             {}},
        Case{"openai_with_mcp_name",
             R"({"tool_calls":[{"type":"function","function":{"name":"a",
               "arguments":"{}"}}],"name":"b","arguments":{}})",
             "ambiguous_output",
             {}},
        Case{"openai_empty_calls_with_tool_use",
             R"({"tool_calls":[],"content":[{"type":"tool_use","id":"t",
               "name":"b","input":{}}]})",
             "ambiguous_output",
             {}},
        Case{"anthropic_block_type_not_string",
             R"({"content":[{"type":7}]})",
             "",
             {"!malformed_tool_call /content/0"}},
        Case{"not_json", "tool_calls: yes", "invalid_json", {}},
        Case{"empty", "", "empty_input", {}},
        Case{"unrecognized", R"({"calls":[]})", "unrecognized_output", {}},
        Case{"scalar", "42", "unrecognized_output", {}}),
    [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

TEST(NativeCalls, SizeCapAppliesToEnvelopeAndArguments) {
  JsonLimits limits;
  limits.max_bytes = 64;
  RawCalls big = ReadNativeCalls(
      R"({"name":"x","arguments":{"a":")" + std::string(100, 'a') + "\"}}",
      limits);
  EXPECT_EQ(big.error.code, "input_too_large");
}

}  // namespace
}  // namespace toolgate
