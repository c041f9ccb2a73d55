// A stream that ends with a provider's stop signal, and the unary native
// output of the same content carrying the same signal, decide alike: the
// same decision, the same codes (stop_signal.h is the one table both
// read), for every value each provider documents. A value toolgate does
// not know, or a null one, is REJECT both ways; only its code differs
// (malformed_stream for the stream's shape, unrecognized_output or
// truncated_output for the unary output).
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/engine/engine.h"
#include "core/stream/assembler.h"
#include "gtest/gtest.h"
#include "tests/stream/golden_cases.h"

namespace toolgate {
namespace {

using stream::Format;

constexpr char kArgs[] = R"({"location":"Paris, France","unit":"celsius"})";

std::string Quoted(const std::string& s) { return Json(s).dump(); }

struct Outputs {
  std::vector<std::string> events;
  std::vector<std::string> natives;  // Unary forms of the same content.
};

Outputs Anthropic(const std::string& reason) {
  const std::string block =
      R"({"type":"tool_use","id":"toolu_1","name":"get_weather","input":)";
  return {{R"({"type":"message_start","message":{"id":"msg_1","type":"message",
             "role":"assistant","content":[],"stop_reason":null}})",
           absl::StrCat(R"({"type":"content_block_start","index":0,
             "content_block":)",
                        block, "{}}}"),
           absl::StrCat(R"({"type":"content_block_delta","index":0,"delta":
             {"type":"input_json_delta","partial_json":)",
                        Quoted(kArgs), "}}"),
           R"({"type":"content_block_stop","index":0})",
           absl::StrCat(R"({"type":"message_delta","delta":{"stop_reason":)",
                        Quoted(reason), R"(},"usage":{"output_tokens":9}})"),
           R"({"type":"message_stop"})"},
          {absl::StrCat(R"({"id":"msg_1","type":"message","role":"assistant",
             "content":[)",
                        block, kArgs, R"(}],"stop_reason":)", Quoted(reason),
                        "}")}};
}

std::string Message(const std::string& key, const std::string& value) {
  return absl::StrCat(
      R"({"role":"assistant","tool_calls":[{"id":"call_1","type":"function",
        "function":{"name":"get_weather","arguments":)",
      Quoted(kArgs), "}}],\"", key, "\":", Quoted(value), "}");
}

Outputs OpenAIChat(const std::string& reason) {
  const std::string chunk =
      R"({"id":"c","object":"chat.completion.chunk","choices":[{"index":0,)";
  return {{absl::StrCat(chunk, R"("delta":{"role":"assistant","tool_calls":[
             {"index":0,"id":"call_1","type":"function","function":
             {"name":"get_weather","arguments":)",
                        Quoted(kArgs), R"(}}]},"finish_reason":null}]})"),
           absl::StrCat(chunk, R"("delta":{},"finish_reason":)",
                        Quoted(reason), "}]}"),
           "[DONE]"},
          {Message("finish_reason", reason)}};
}

Outputs Gemini(const std::string& reason) {
  return {{absl::StrCat(R"({"candidates":[{"content":{"role":"model","parts":
             [{"functionCall":{"id":"call_1","name":"get_weather","args":)",
                        kArgs, R"(}}]},"finishReason":)", Quoted(reason),
                        R"(,"index":0}]})")},
          {Message("finishReason", reason),
           absl::StrCat(R"({"candidates":[{"content":{"role":"model","parts":
             [{"functionCall":{"id":"call_1","name":"get_weather","args":)",
                        kArgs, R"(}}]},"finishReason":)", Quoted(reason),
                        R"(,"index":0}]})")}};
}

// The Responses events that end a response carry its status in their
// type: response.completed, response.incomplete, response.failed.
Outputs Responses(const std::string& status) {
  const std::string item =
      R"({"type":"function_call","id":"fc_1","call_id":"call_1",
        "name":"get_weather","arguments":)";
  return {{absl::StrCat(R"({"type":"response.output_item.added",
             "output_index":0,"item":)",
                        item, R"("","status":"in_progress"}})"),
           absl::StrCat(R"({"type":"response.function_call_arguments.delta",
             "output_index":0,"item_id":"fc_1","delta":)",
                        Quoted(kArgs), "}"),
           absl::StrCat(R"({"type":"response.output_item.done",
             "output_index":0,"item":)",
                        item, Quoted(kArgs), R"(,"status":"completed"}})"),
           absl::StrCat(R"({"type":"response.)", status,
                        R"(","response":{"id":"resp_1","status":)",
                        Quoted(status), "}}")},
          {Message("status", status)}};
}

struct Case {
  Format format;
  std::string value;
};

std::vector<std::string> Codes(const ValidateCallResponse& r) {
  std::vector<std::string> codes;
  for (const Violation& v : r.violations) codes.push_back(v.code);
  return codes;
}

class StopParity : public testing::TestWithParam<Case> {
 protected:
  testutil::GoldenEngine golden_;
};

TEST_P(StopParity, UnaryDecidesAsTheStream) {
  const Case& c = GetParam();
  Outputs o;
  if (c.format == Format::kAnthropicMessages) o = Anthropic(c.value);
  if (c.format == Format::kOpenAIChat) o = OpenAIChat(c.value);
  if (c.format == Format::kGemini) o = Gemini(c.value);
  if (c.format == Format::kOpenAIResponses) o = Responses(c.value);
  ValidateCallRequest streamed;
  streamed.kind = OutputKind::kStream;
  streamed.stream_format = c.format;
  streamed.stream_events.assign(o.events.begin(), o.events.end());
  const ValidateCallResponse s = golden_.Decide(streamed);
  // The streams are well formed: only an unknown value is malformed.
  const bool unknown = c.value == "out_of_budget" || c.value == "function_call";
  EXPECT_EQ(Codes(s) == std::vector<std::string>{"malformed_stream"}, unknown);
  EXPECT_EQ(s.decision == Decision::kAllow,
            c.value == "end_turn" || c.value == "tool_use" ||
                c.value == "stop_sequence" || c.value == "tool_calls" ||
                c.value == "stop" || c.value == "STOP" ||
                c.value == "completed");
  for (const std::string& native : o.natives) {
    ValidateCallRequest unary;
    unary.kind = OutputKind::kNative;
    unary.output = native;
    const ValidateCallResponse u = golden_.Decide(unary);
    const bool envelope = absl::StrContains(native, "candidates");
    if (envelope && s.decision == Decision::kAllow) {
      // A Gemini response is not a shape read as such (clients reshape
      // it): only its refusals must agree.
      EXPECT_EQ(Codes(u), std::vector<std::string>{"unrecognized_output"});
      continue;
    }
    EXPECT_EQ(s.decision, u.decision) << native;
    if (Codes(s) == std::vector<std::string>{"malformed_stream"}) {
      // An unknown value: refused both ways, each in its reader's words.
      EXPECT_EQ(Codes(u), std::vector<std::string>{"unrecognized_output"})
          << native;
      continue;
    }
    EXPECT_EQ(Codes(s), Codes(u)) << native;
    ASSERT_EQ(s.calls.size(), u.calls.size());
    for (size_t i = 0; i < s.calls.size(); ++i) {
      EXPECT_EQ(s.calls[i].arguments_json, u.calls[i].arguments_json);
    }
  }
}

std::vector<Case> Cases() {
  std::vector<Case> out;
  for (const char* v :
       {"end_turn", "tool_use", "stop_sequence", "max_tokens", "pause_turn",
        "model_context_window_exceeded", "refusal", "out_of_budget"}) {
    out.push_back({Format::kAnthropicMessages, v});
  }
  for (const char* v :
       {"tool_calls", "stop", "length", "content_filter", "function_call"}) {
    out.push_back({Format::kOpenAIChat, v});
  }
  for (const char* v :
       {"STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "LANGUAGE", "OTHER",
        "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL",
        "IMAGE_SAFETY", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS",
        "FINISH_REASON_UNSPECIFIED"}) {
    out.push_back({Format::kGemini, v});
  }
  for (const char* v : {"completed", "incomplete", "failed"}) {
    out.push_back({Format::kOpenAIResponses, v});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    Values, StopParity, testing::ValuesIn(Cases()),
    [](const testing::TestParamInfo<Case>& info) {
      return absl::StrCat(stream::FormatName(info.param.format), "_",
                          info.param.value);
    });

}  // namespace
}  // namespace toolgate
