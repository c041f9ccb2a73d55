// Native output that carries the provider's own stop signal
// (core/gate/native_stop.h, core/stream/stop_signal.h).
#include <ostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/gate/calls.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

constexpr char kCallA[] =
    R"({"type":"function","function":{"name":"a","arguments":"{}"}})";

// The provider's own stop signal (core/stream/stop_signal.h): an output
// that stopped for length, a refusal or a failure is refused with the
// code a stream of the same content gets, however whole its calls look;
// one that stopped normally is read; an unknown, ill-typed or null signal
// is refused.
struct Stop {
  std::string name;
  std::string native;
  std::string code;  // "" when the calls are read.
  std::string pointer;
};

void PrintTo(const Stop& c, std::ostream* os) { *os << c.name; }

class NativeStop : public testing::TestWithParam<Stop> {};

TEST_P(NativeStop, DecidesAsTheStreamWould) {
  const Stop& c = GetParam();
  RawCalls got = ReadNativeCalls(c.native, JsonLimits());
  EXPECT_EQ(got.error.code, c.code) << got.error.message;
  if (c.code.empty()) {
    ASSERT_EQ(got.calls.size(), 1u);
    EXPECT_TRUE(got.calls[0].error.ok()) << got.calls[0].error.message;
  } else {
    EXPECT_EQ(got.error.pointer, c.pointer) << got.error.message;
    EXPECT_TRUE(got.calls.empty());
  }
}

// An Anthropic message whose tool_use input is whole, with `more` members.
std::string Anthropic(const std::string& more) {
  return absl::StrCat(
      R"({"id":"msg_1","type":"message","role":"assistant","model":"m",
        "content":[{"type":"text","text":"On it."},{"type":"tool_use",
        "id":"t1","name":"a","input":{"ticket_id":"TCK-000001"}}])",
      more.empty() ? "" : ",", more, "}");
}

// An OpenAI message with a whole call, with `more` members.
std::string Chat(const std::string& more) {
  return absl::StrCat(R"({"role":"assistant","content":null,"tool_calls":[)",
                      kCallA, "]", more.empty() ? "" : ",", more, "}");
}

std::string StopReason(const std::string& value) {
  return Anthropic(absl::StrCat(R"("stop_reason":)", value));
}
std::string Finish(const std::string& key, const std::string& value) {
  return Chat(absl::StrCat("\"", key, "\":", value));
}

// A whole ChatCompletion with one choice finished for `reason`.
std::string Completion(const std::string& reason) {
  return absl::StrCat(
      R"({"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,
        "message":{"role":"assistant","content":null,"tool_calls":[)",
      kCallA, R"(]},"logprobs":null,"finish_reason":)", reason, "}]}");
}

INSTANTIATE_TEST_SUITE_P(
    Table, NativeStop,
    testing::Values(
        // Anthropic: every stop_reason the API documents.
        Stop{"anthropic_end_turn", StopReason(R"("end_turn")"), "", ""},
        Stop{"anthropic_tool_use", StopReason(R"("tool_use")"), "", ""},
        Stop{"anthropic_stop_sequence", StopReason(R"("stop_sequence")"), "",
             ""},
        Stop{"anthropic_max_tokens", StopReason(R"("max_tokens")"),
             "truncated_output", "/stop_reason"},
        Stop{"anthropic_pause_turn", StopReason(R"("pause_turn")"),
             "truncated_output", "/stop_reason"},
        Stop{"anthropic_context_window",
             StopReason(R"("model_context_window_exceeded")"),
             "truncated_output", "/stop_reason"},
        Stop{"anthropic_refusal", StopReason(R"("refusal")"), "stream_error",
             "/stop_reason"},
        Stop{"anthropic_max_tokens_escaped",
             StopReason(R"("max\u005ftokens")"), "truncated_output",
             "/stop_reason"},
        Stop{"anthropic_unknown", StopReason(R"("out_of_budget")"),
             "unrecognized_output", "/stop_reason"},
        Stop{"anthropic_case_variant", StopReason(R"("End_turn")"),
             "unrecognized_output", "/stop_reason"},
        Stop{"anthropic_not_a_string", StopReason("1"), "unrecognized_output",
             "/stop_reason"},
        Stop{"anthropic_object", StopReason(R"({"reason":"end_turn"})"),
             "unrecognized_output", "/stop_reason"},
        // null: a message still being generated (message_start's).
        Stop{"anthropic_null", StopReason("null"), "truncated_output",
             "/stop_reason"},
        Stop{"anthropic_absent", Anthropic(""), "", ""},
        // The signal is read before the content: a cut message with a
        // second shape is still a cut message.
        Stop{"anthropic_max_tokens_before_ambiguity",
             Anthropic(R"("stop_reason":"max_tokens","tool_calls":[])"),
             "truncated_output", "/stop_reason"},
        // OpenAI Chat: a message carrying its choice's finish_reason (as
        // the clients send it), complete-looking calls and all.
        Stop{"chat_tool_calls", Finish("finish_reason", R"("tool_calls")"), "",
             ""},
        Stop{"chat_stop", Finish("finish_reason", R"("stop")"), "", ""},
        Stop{"chat_length", Finish("finish_reason", R"("length")"),
             "truncated_output", "/finish_reason"},
        Stop{"chat_content_filter",
             Finish("finish_reason", R"("content_filter")"),
             "truncated_output", "/finish_reason"},
        Stop{"chat_function_call", Finish("finish_reason", R"("function_call")"),
             "unrecognized_output", "/finish_reason"},
        Stop{"chat_null", Finish("finish_reason", "null"), "truncated_output",
             "/finish_reason"},
        Stop{"chat_anthropic_word", Finish("finish_reason", R"("end_turn")"),
             "unrecognized_output", "/finish_reason"},
        // A whole ChatCompletion: its envelope is not read, but a choice
        // that did not finish is refused for that.
        Stop{"completion_length", Completion(R"("length")"),
             "truncated_output", "/choices/0/finish_reason"},
        Stop{"completion_content_filter", Completion(R"("content_filter")"),
             "truncated_output", "/choices/0/finish_reason"},
        Stop{"completion_null", Completion("null"), "truncated_output",
             "/choices/0/finish_reason"},
        Stop{"completion_tool_calls", Completion(R"("tool_calls")"),
             "unrecognized_output", ""},
        // Gemini: a candidate's finishReason beside the calls.
        Stop{"gemini_stop", Finish("finishReason", R"("STOP")"), "", ""},
        Stop{"gemini_max_tokens", Finish("finishReason", R"("MAX_TOKENS")"),
             "truncated_output", "/finishReason"},
        Stop{"gemini_safety", Finish("finishReason", R"("SAFETY")"),
             "stream_error", "/finishReason"},
        Stop{"gemini_malformed_call",
             Finish("finishReason", R"("MALFORMED_FUNCTION_CALL")"),
             "stream_error", "/finishReason"},
        Stop{"gemini_unspecified",
             Finish("finishReason", R"("FINISH_REASON_UNSPECIFIED")"),
             "stream_error", "/finishReason"},
        Stop{"gemini_lowercase_stop", Finish("finishReason", R"("stop")"),
             "stream_error", "/finishReason"},
        Stop{"gemini_null", Finish("finishReason", "null"), "truncated_output",
             "/finishReason"},
        Stop{"gemini_response_max_tokens",
             R"({"candidates":[{"content":{"role":"model","parts":[
               {"functionCall":{"name":"a","args":{}}}]},
               "finishReason":"MAX_TOKENS","index":0}]})",
             "truncated_output", "/candidates/0/finishReason"},
        Stop{"gemini_prompt_blocked",
             Chat(R"("promptFeedback":{"blockReason":"SAFETY"})"),
             "stream_error", "/promptFeedback/blockReason"},
        // Responses: the response's status beside the calls.
        Stop{"responses_completed", Finish("status", R"("completed")"), "",
             ""},
        Stop{"responses_incomplete",
             Chat(R"("status":"incomplete","incomplete_details":
               {"reason":"max_output_tokens"})"),
             "truncated_output", "/status"},
        Stop{"responses_in_progress", Finish("status", R"("in_progress")"),
             "truncated_output", "/status"},
        Stop{"responses_queued", Finish("status", R"("queued")"),
             "truncated_output", "/status"},
        Stop{"responses_cancelled", Finish("status", R"("cancelled")"),
             "truncated_output", "/status"},
        Stop{"responses_failed", Finish("status", R"("failed")"),
             "stream_error", "/status"},
        Stop{"responses_unknown", Finish("status", R"("ok")"),
             "unrecognized_output", "/status"},
        Stop{"responses_object_incomplete",
             R"({"id":"resp_1","object":"response","status":"incomplete",
               "output":[{"type":"function_call","call_id":"c","name":"a",
               "arguments":"{}","status":"incomplete"}]})",
             "truncated_output", "/status"},
        // MCP params carry no signal, but one beside them is read.
        Stop{"mcp_with_stop_reason",
             R"({"name":"a","arguments":{},"stop_reason":"max_tokens"})",
             "truncated_output", "/stop_reason"},
        // Below the top: a framework's metadata, a content block.
        Stop{"nested_metadata_length",
             Chat(R"("response_metadata":{"finish_reason":"length"})"),
             "truncated_output", "/response_metadata/finish_reason"},
        Stop{"nested_metadata_stop",
             Chat(R"("response_metadata":{"finish_reason":"stop"})"), "", ""},
        Stop{"nested_in_block",
             R"({"content":[{"type":"text","text":"x","stop_reason":null},
               {"type":"tool_use","id":"t","name":"a","input":{}}]})",
             "truncated_output", "/content/0/stop_reason"},
        Stop{"nested_in_array",
             Chat(R"("meta":[{"x":{"finishReason":"SAFETY"}}])"),
             "stream_error", "/meta/0/x/finishReason"},
        // A status below the top means nothing; a call's arguments are
        // data, whatever their keys.
        Stop{"nested_status", Chat(R"("meta":{"status":"failed"})"), "", ""},
        Stop{"arguments_with_signal_keys",
             R"({"content":[{"type":"tool_use","id":"t","name":"a","input":
               {"stop_reason":"max_tokens","status":"failed",
                "finish_reason":null}}],"stop_reason":"tool_use"})",
             "", ""},
        // Read as the strict parser reads it: an escaped key is the key.
        Stop{"escaped_key",
             Anthropic(R"("stop\u005freason":"max_tokens")"),
             "truncated_output", "/stop_reason"},
        // A bare tool_calls array: its elements are searched too.
        Stop{"bare_array_call_with_finish_reason",
             R"([{"type":"function","function":{"name":"a","arguments":"{}"},
               "finish_reason":"length"}])",
             "truncated_output", "/0/finish_reason"},
        Stop{"bare_array_function_with_stop_reason",
             R"([{"type":"function","function":{"name":"a","arguments":"{}",
               "stop_reason":"refusal"}}])",
             "stream_error", "/0/function/stop_reason"},
        Stop{"bare_array_complete",
             R"([{"type":"function","function":{"name":"a","arguments":"{}"},
               "finish_reason":"tool_calls"}])",
             "", ""},
        Stop{"mcp_arguments_with_signal_keys",
             R"({"name":"a","arguments":{"finishReason":"SAFETY"}})", "", ""}),
    [](const testing::TestParamInfo<Stop>& info) { return info.param.name; });

}  // namespace
}  // namespace toolgate
