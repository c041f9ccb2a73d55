#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
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
        // Benign neighbours of the second-shape attacks below: they read.
        Case{"openai_prose_content_beside_calls",
             R"({"role":"assistant","content":"Let me look that up {x}.",
               "refusal":null,"annotations":[],"tool_calls":[{"id":"c",
               "type":"function","function":{"name":"a","arguments":"{}"}}]})",
             "",
             {"openai_tool_calls a {}"}},
        Case{"openai_text_parts_beside_calls",
             R"({"content":[{"type":"text","text":"Checking { in prose."}],
               "tool_calls":[{"type":"function","function":{"name":"a",
               "arguments":"{\"q\":\"<tool_call>\"}"}}]})",
             "",
             {R"(openai_tool_calls a {"q":"<tool_call>"})"}},
        Case{
            "anthropic_full_envelope_with_reasoning",
            R"({"id":"msg_1","type":"message","role":"assistant",
               "model":"m","stop_reason":"tool_use","stop_sequence":null,
               "usage":{"input_tokens":5,"output_tokens":7},
               "content":[
                 {"type":"thinking","signature":"s","thinking":
                   "maybe <tool_call>{\"name\":\"x\",\"arguments\":{}}</tool_call>"},
                 {"type":"redacted_thinking","data":"opaque"},
                 {"type":"text","text":"I'll fetch it."},
                 {"type":"tool_use","id":"t","name":"a",
                  "input":{"spec":{"name":"n","arguments":{"k":1}}}}]})",
            "",
            {R"(anthropic_tool_use a {"spec":{"arguments":{"k":1},"name":"n"}})"}},
        // What the OpenAI and Anthropic SDKs' model_dump() give.
        Case{"openai_sdk_dump",
             R"({"content":null,"refusal":null,"role":"assistant",
               "annotations":[],"audio":null,"function_call":null,
               "tool_calls":[{"id":"call_1","function":{"arguments":"{}",
               "name":"a"},"type":"function"}]})",
             "",
             {"openai_tool_calls a {}"}},
        Case{"anthropic_sdk_dump",
             R"({"id":"msg_1","container":null,"content":[
               {"citations":null,"text":"On it.","type":"text"},
               {"id":"toolu_1","input":{},"name":"a","type":"tool_use"}],
               "model":"m","role":"assistant","stop_reason":"tool_use",
               "stop_sequence":null,"type":"message","usage":{
               "cache_creation_input_tokens":0,"cache_read_input_tokens":0,
               "input_tokens":5,"output_tokens":7,
               "server_tool_use":{"web_search_requests":0},
               "service_tier":"standard"}})",
             "",
             {"anthropic_tool_use a {}"}},
        Case{"mcp_params_with_meta",
             R"({"name":"a","arguments":{"x":1},"_meta":{"progressToken":1}})",
             "",
             {R"(mcp_call a {"x":1})"}},
        Case{"not_json", "tool_calls: yes", "invalid_json", {}},
        Case{"empty", "", "empty_input", {}},
        Case{"unrecognized", R"({"calls":[]})", "unrecognized_output", {}},
        Case{"scalar", "42", "unrecognized_output", {}}),
    [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

// A second shape beside the one read, or a call-like part toolgate does not
// read: an executor or runtime could run it unvalidated, so the whole
// output is refused, pointing at the part.
struct Unchecked {
  std::string name;
  std::string native;
  std::string pointer;
};

void PrintTo(const Unchecked& c, std::ostream* os) { *os << c.name; }

class NativeCallsUnchecked : public testing::TestWithParam<Unchecked> {};

TEST_P(NativeCallsUnchecked, RefusedAsAmbiguousOutput) {
  const Unchecked& c = GetParam();
  RawCalls got = ReadNativeCalls(c.native, JsonLimits());
  EXPECT_EQ(got.error.code, "ambiguous_output") << got.error.message;
  EXPECT_EQ(got.error.pointer, c.pointer) << got.error.message;
  EXPECT_TRUE(got.calls.empty());
}

constexpr char kCallA[] =
    R"({"type":"function","function":{"name":"a","arguments":"{}"}})";

std::string OpenAIWith(const std::string& more) {
  return absl::StrCat(R"({"role":"assistant","tool_calls":[)", kCallA, "],",
                      more, "}");
}

std::string AnthropicWith(const std::string& block) {
  return absl::StrCat(
      R"({"role":"assistant","content":[{"type":"tool_use","id":"t1",
        "name":"a","input":{}},)",
      block, "]}");
}

INSTANTIATE_TEST_SUITE_P(
    Table, NativeCallsUnchecked,
    testing::Values(
        // A call nested anywhere else, named by an escaped JSON Pointer.
        Unchecked{"nested_call_escaped_pointer",
                  OpenAIWith(R"("meta":{"a/b":[1,{"x~y":{"name":"b",
                    "arguments":"{}"}}]})"),
                  "/meta/a~1b/1/x~0y"},
        // OpenAI tool_calls and a legacy function_call.
        Unchecked{"legacy_function_call",
                  OpenAIWith(R"("function_call":{"name":"b",
                    "arguments":"{}"})"),
                  "/function_call"},
        Unchecked{"legacy_function_call_string",
                  OpenAIWith(R"("function_call":"b")"), "/function_call"},
        // Anthropic blocks whose type is a variant of tool_use, or another
        // block carrying a name and input.
        Unchecked{"block_type_capitalised",
                  AnthropicWith(R"({"type":"Tool_use","id":"t2","name":"b",
                    "input":{}})"),
                  "/content/1"},
        Unchecked{"block_type_trailing_space",
                  AnthropicWith(R"({"type":"tool_use ","id":"t2","name":"b",
                    "input":{}})"),
                  "/content/1"},
        Unchecked{"block_type_zero_width",
                  AnthropicWith(R"({"type":"tool_use\u200b","id":"t2",
                    "name":"b","input":{}})"),
                  "/content/1"},
        Unchecked{"server_tool_use",
                  AnthropicWith(R"({"type":"server_tool_use","id":"s",
                    "name":"web_search","input":{"query":"x"}})"),
                  "/content/1"},
        Unchecked{"mcp_tool_use",
                  AnthropicWith(R"({"type":"mcp_tool_use","id":"m",
                    "name":"b","server_name":"srv","input":{}})"),
                  "/content/1"},
        Unchecked{"unknown_block_type",
                  AnthropicWith(R"({"type":"function","id":"f"})"),
                  "/content/1"},
        Unchecked{"text_block_with_name_and_input",
                  AnthropicWith(R"({"type":"text","text":"ok","name":"b",
                    "input":{}})"),
                  "/content/1"},
        Unchecked{"block_not_an_object", AnthropicWith(R"("<tool_call>")"),
                  "/content/1"},
        Unchecked{"bedrock_tool_use_block",
                  AnthropicWith(R"({"toolUse":{"toolUseId":"x","name":"b",
                    "input":{}}})"),
                  "/content/1/toolUse"},
        Unchecked{"only_server_tool_use",
                  R"({"content":[{"type":"server_tool_use","id":"s",
                    "name":"web_search","input":{}}]})",
                  "/content/0"},
        Unchecked{"tool_use_beside_openai_calls",
                  OpenAIWith(R"("content":[{"type":"tool_use","id":"t",
                    "name":"b","input":{}}])"),
                  "/content/0"},
        // Call text next to native calls.
        Unchecked{"content_tool_call_tag", OpenAIWith(R"("content":
                    "<tool_call>{\"name\":\"b\",\"arguments\":{}}</tool_call>")"),
                  "/content"},
        Unchecked{"content_fenced_call", OpenAIWith(R"("content":
                    "```json\n{\"name\":\"b\",\"arguments\":{}}\n```")"),
                  "/content"},
        Unchecked{"content_bare_object",
                  OpenAIWith(R"("content":"Calling {name: \"b\"} now")"),
                  "/content"},
        Unchecked{"content_mistral_marker",
                  OpenAIWith(R"("content":"[TOOL_CALLS] [{\"name\":\"b\"}]")"),
                  "/content"},
        Unchecked{"content_react",
                  OpenAIWith(R"("content":"Action: b\nAction Input: x")"),
                  "/content"},
        Unchecked{"content_llama_function_tag",
                  OpenAIWith(R"("content":"<function=b>none</function>")"),
                  "/content"},
        Unchecked{
            "content_deepseek_marker",
            // <U+FF5C>tool<U+2581>calls<U+2581>begin<U+FF5C>
            OpenAIWith(
                R"("content":"<\uff5ctool\u2581calls\u2581begin\uff5c>")"),
            "/content"},
        Unchecked{"content_object_not_text",
                  OpenAIWith(R"("content":{"text":"hi"})"), "/content"},
        Unchecked{"openai_text_part_tool_call",
                  OpenAIWith(R"("content":[{"type":"text",
                    "text":"<tool_call>"}])"),
                  "/content/0/text"},
        Unchecked{"anthropic_text_block_invoke",
                  R"({"content":[{"type":"text","text":"<invoke name=\"b\">"},
                    {"type":"tool_use","id":"t","name":"a","input":{}}]})",
                  "/content/0/text"},
        Unchecked{
            "content_call_with_null_tool_calls",
            R"({"content":"<tool_call>{\"name\":\"b\",\"arguments\":{}}</tool_call>",
                    "tool_calls":null})",
            "/content"},
        // Other providers' call shapes beside the calls read.
        Unchecked{"responses_function_call_item",
                  OpenAIWith(R"("output":[{"type":"function_call",
                    "call_id":"c","name":"b","arguments":"{}"}])"),
                  "/output/0"},
        Unchecked{"gemini_function_call_part",
                  OpenAIWith(R"("parts":[{"functionCall":{"name":"b",
                    "args":{}}}])"),
                  "/parts/0/functionCall"},
        Unchecked{"flattened_call_in_tool_calls_entry",
                  R"([{"type":"function","function":{"name":"a",
                    "arguments":"{}"},"name":"b","arguments":"{}"}])",
                  "/0"},
        // A call read with a second arguments member an executor might use.
        Unchecked{"openai_function_with_parameters",
                  R"([{"type":"function","function":{"name":"a",
                    "arguments":"{}","parameters":{"x":1}}}])",
                  "/0/function/parameters"},
        Unchecked{"tool_use_with_arguments",
                  R"({"content":[{"type":"tool_use","id":"t","name":"a",
                    "input":{},"arguments":{"x":1}}]})",
                  "/content/0/arguments"},
        Unchecked{"mcp_with_input", R"({"name":"a","arguments":{},"input":{}})",
                  "/input"}),
    [](const testing::TestParamInfo<Unchecked>& info) {
      return info.param.name;
    });

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
