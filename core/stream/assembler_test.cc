// Per-format tables of what completes, assembles and refuses a stream, and
// the limits; the golden streams (golden_test.cc) cover whole documented
// examples.
#include "core/stream/assembler.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace stream {
namespace {

using ::testing::HasSubstr;

struct Case {
  std::string name;
  Format format;
  std::vector<std::string> events;
  std::string code;    // Expected refusal; "" when the stream assembles.
  std::string output;  // Expected output when it assembles.
  std::string pointer = "";
};

std::ostream& operator<<(std::ostream& os, const Case& c) {
  return os << c.name;
}

Assembly Assemble(Format format, const std::vector<std::string>& events,
                  const Limits& limits = Limits()) {
  auto assembler = Assembler::Create(format, limits);
  for (const std::string& e : events) assembler->Add(e);
  return assembler->Finish();
}

class Table : public ::testing::TestWithParam<Case> {};

TEST_P(Table, AssemblesOrRefuses) {
  const Case& c = GetParam();
  Assembly got = Assemble(c.format, c.events);
  EXPECT_EQ(got.error.code, c.code) << got.error.message;
  if (c.code.empty()) {
    EXPECT_EQ(got.output, c.output);
  } else {
    EXPECT_TRUE(got.output.empty());
    EXPECT_FALSE(got.error.message.empty());
    if (!c.pointer.empty()) {
      EXPECT_EQ(got.error.pointer, c.pointer);
    }
  }
}

const Format kChat = Format::kOpenAIChat;
const Format kResp = Format::kOpenAIResponses;
const Format kAnth = Format::kAnthropicMessages;
const Format kGem = Format::kGemini;

std::string Chunk(const std::string& delta,
                  const std::string& finish = "null") {
  return R"({"choices":[{"index":0,"delta":)" + delta + R"(,"finish_reason":)" +
         finish + "}]}";
}
const std::string kOpen = Chunk(
    R"({"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":""}}]})");
const std::string kArgs =
    Chunk(R"({"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]})");
const std::string kFinish = Chunk("{}", R"("tool_calls")");
const std::string kCallOut =
    R"({"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{}","name":"f"},"id":"c1","type":"function"}]})";

INSTANTIATE_TEST_SUITE_P(
    OpenAIChat, Table,
    ::testing::Values(
        Case{"call", kChat, {kOpen, kArgs, kFinish, "[DONE]"}, "", kCallOut},
        Case{"done_with_spaces",
             kChat,
             {kOpen, kArgs, kFinish, " [DONE]\n"},
             "",
             kCallOut},
        Case{"text",
             kChat,
             {Chunk(R"({"content":"a"})"),
              Chunk(R"({"content":"b"})", R"("stop")")},
             "",
             "ab"},
        Case{"refusal_is_text",
             kChat,
             {Chunk(R"({"refusal":"no"})", R"("stop")")},
             "",
             "no"},
        Case{"empty_stream", kChat, {}, "truncated_stream", "", ""},
        Case{"second_done",
             kChat,
             {kOpen, kArgs, kFinish, "[DONE]", "[DONE]"},
             "malformed_stream",
             "",
             "/events/4"},
        Case{"event_after_done",
             kChat,
             {kOpen, kArgs, kFinish, "[DONE]", R"({"choices":[]})"},
             "malformed_stream"},
        Case{"named_again",
             kChat,
             {kOpen,
              Chunk(R"({"tool_calls":[{"index":0,"function":{"name":"g"}}]})"),
              kFinish},
             "malformed_stream",
             "",
             "/events/1"},
        Case{
            "first_fragment_unnamed",
            kChat,
            {Chunk(
                R"({"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]})")},
            "malformed_stream"},
        Case{
            "index_gap",
            kChat,
            {kOpen,
             Chunk(
                 R"({"tool_calls":[{"index":2,"id":"c3","function":{"name":"f"}}]})")},
            "malformed_stream"},
        Case{"second_choice",
             kChat,
             {R"({"choices":[{"index":1,"delta":{"content":"x"}}]})"},
             "malformed_stream"},
        Case{"legacy_function_call",
             kChat,
             {Chunk(R"({"function_call":{"name":"f","arguments":"{}"}})")},
             "malformed_stream"},
        Case{"unknown_finish_reason",
             kChat,
             {kOpen, Chunk("{}", R"("odd")")},
             "malformed_stream"},
        Case{"wrong_object",
             kChat,
             {R"({"object":"chat.completion","choices":[]})"},
             "malformed_stream"},
        Case{"no_choices", kChat, {R"({"id":"x"})"}, "malformed_stream"},
        Case{"duplicate_key_event",
             kChat,
             {R"({"choices":[],"choices":[]})"},
             "malformed_stream"},
        Case{"not_an_object", kChat, {"[1,2]"}, "malformed_stream"},
        Case{"first_reason_kept",
             kChat,
             {kOpen, Chunk("{}", R"("length")"), "not json"},
             "truncated_output",
             "",
             "/events/1"}));

const std::string kCreated = R"({"type":"response.created","response":{}})";
const std::string kAdded =
    R"({"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","call_id":"c1","name":"f","arguments":""}})";
const std::string kDelta =
    R"({"type":"response.function_call_arguments.delta","output_index":0,"delta":"{}"})";
const std::string kItemDone =
    R"({"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"}})";
const std::string kCompleted =
    R"({"type":"response.completed","response":{"status":"completed"}})";

INSTANTIATE_TEST_SUITE_P(
    OpenAIResponses, Table,
    ::testing::Values(
        Case{"call",
             kResp,
             {kCreated, kAdded, kDelta, kItemDone, kCompleted},
             "",
             kCallOut},
        Case{
            "arguments_only_in_done",
            kResp,
            {kAdded,
             R"({"type":"response.function_call_arguments.done","output_index":0,"arguments":"{}"})",
             kItemDone, kCompleted},
            "",
            kCallOut},
        Case{"item_not_done",
             kResp,
             {kAdded, kDelta, kCompleted},
             "malformed_stream"},
        Case{
            "done_renames",
            kResp,
            {kAdded, kDelta,
             R"({"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","name":"g","arguments":"{}"}})"},
            "malformed_stream"},
        Case{"delta_for_unknown_item", kResp, {kDelta}, "malformed_stream"},
        Case{"delta_after_item_done",
             kResp,
             {kAdded, kDelta, kItemDone, kDelta},
             "malformed_stream"},
        Case{"after_completed",
             kResp,
             {kAdded, kDelta, kItemDone, kCompleted, kCreated},
             "malformed_stream"},
        Case{
            "completed_not_completed",
            kResp,
            {R"({"type":"response.completed","response":{"status":"failed"}})"},
            "malformed_stream"},
        Case{"unknown_event",
             kResp,
             {R"({"type":"response.audio.delta"})"},
             "malformed_stream"},
        Case{"done_before_completed",
             kResp,
             {kAdded, kDelta, "[DONE]"},
             "truncated_stream",
             "",
             "/events/2"},
        Case{"done_after_completed",
             kResp,
             {kAdded, kDelta, kItemDone, kCompleted, "[DONE]"},
             "",
             kCallOut},
        Case{"event_after_done",
             kResp,
             {kAdded, kDelta, kItemDone, kCompleted, "[DONE]", kCreated},
             "malformed_stream"},
        Case{"untyped", kResp, {R"({"choices":[]})"}, "malformed_stream"}));

const std::string kStart =
    R"({"type":"message_start","message":{"content":[]}})";
const std::string kToolStart =
    R"({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"c1","name":"f","input":{}}})";
const std::string kJson =
    R"({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}})";
const std::string kStop0 = R"({"type":"content_block_stop","index":0})";
std::string Reason(const std::string& r) {
  return R"({"type":"message_delta","delta":{"stop_reason":")" + r + R"("}})";
}
const std::string kMsgStop = R"({"type":"message_stop"})";

INSTANTIATE_TEST_SUITE_P(
    AnthropicMessages, Table,
    ::testing::Values(
        Case{"call",
             kAnth,
             {kStart, kToolStart, kJson, kStop0, Reason("tool_use"), kMsgStop},
             "",
             kCallOut},
        Case{"refusal", kAnth, {kStart, Reason("refusal")}, "stream_error"},
        Case{"pause_turn",
             kAnth,
             {kStart, Reason("pause_turn")},
             "truncated_output"},
        Case{"unknown_stop_reason",
             kAnth,
             {kStart, Reason("odd")},
             "malformed_stream"},
        Case{"stop_without_reason",
             kAnth,
             {kStart, kToolStart, kJson, kStop0, kMsgStop},
             "malformed_stream"},
        Case{"before_message_start", kAnth, {kToolStart}, "malformed_stream"},
        Case{"second_message_start",
             kAnth,
             {kStart, kStart},
             "malformed_stream"},
        Case{
            "text_delta_into_tool_block",
            kAnth,
            {kStart, kToolStart,
             R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}})"},
            "malformed_stream"},
        Case{
            "server_tool_block",
            kAnth,
            {kStart,
             R"({"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"s","name":"web_search","input":{}}})"},
            "malformed_stream"},
        Case{"block_stopped_twice",
             kAnth,
             {kStart, kToolStart, kStop0, kStop0},
             "malformed_stream"},
        Case{"event_after_stop",
             kAnth,
             {kStart, kToolStart, kJson, kStop0, Reason("tool_use"), kMsgStop,
              R"({"type":"ping"})"},
             "malformed_stream"}));

std::string Gem(const std::string& parts, const std::string& finish = "") {
  return R"({"candidates":[{"content":{"parts":)" + parts + "}" +
         (finish.empty() ? "" : R"(,"finishReason":")" + finish + "\"") + "}]}";
}
const std::string kGemCall = R"([{"functionCall":{"name":"f","args":{}}}])";
const std::string kGemOut =
    R"({"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{}","name":"f"},"type":"function"}]})";

INSTANTIATE_TEST_SUITE_P(
    Gemini, Table,
    ::testing::Values(
        Case{"call", kGem, {Gem(kGemCall, "STOP")}, "", kGemOut},
        Case{"call_without_args",
             kGem,
             {Gem(R"([{"functionCall":{"name":"f"}}])", "STOP")},
             "",
             kGemOut},
        Case{"usage_after_stop",
             kGem,
             {Gem(kGemCall, "STOP"),
              R"({"usageMetadata":{"totalTokenCount":3}})"},
             "",
             kGemOut},
        Case{"prompt_blocked",
             kGem,
             {R"({"promptFeedback":{"blockReason":"SAFETY"}})"},
             "stream_error"},
        Case{"recitation", kGem, {Gem("[]", "RECITATION")}, "stream_error"},
        Case{"two_candidates",
             kGem,
             {R"({"candidates":[{"index":0},{"index":1}]})"},
             "malformed_stream"},
        Case{"executable_code_part",
             kGem,
             {Gem(R"j([{"executableCode":{"code":"print(1)"}}])j")},
             "malformed_stream"},
        Case{"text_and_call_in_one_part",
             kGem,
             {Gem(R"([{"text":"a","functionCall":{"name":"f"}}])")},
             "malformed_stream"},
        Case{
            "partial_args",
            kGem,
            {Gem(
                R"([{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a","stringValue":"x"}],"willContinue":true}}])",
                "STOP")},
            "malformed_stream"},
        Case{"args_not_object",
             kGem,
             {Gem(R"([{"functionCall":{"name":"f","args":"{}"}}])")},
             "malformed_stream"},
        Case{"openai_chunk", kGem, {Chunk("{}")}, "malformed_stream"},
        Case{"error",
             kGem,
             {R"({"error":{"code":500,"message":"x"}})"},
             "stream_error"}));

TEST(Limits, MoreEventsThanTheCapIsInputTooLarge) {
  Limits limits;
  limits.max_events = 3;
  Assembly got = Assemble(kChat, {kOpen, kArgs, kFinish, "[DONE]"}, limits);
  EXPECT_EQ(got.error.code, "input_too_large");
  EXPECT_EQ(got.error.pointer, "/events/3");
  EXPECT_EQ(Assemble(kChat, {kOpen, kArgs, kFinish}, limits).error.code, "");
}

TEST(Limits, MoreBytesThanTheCapIsInputTooLarge) {
  Limits limits;
  limits.max_bytes = kOpen.size() + kArgs.size();
  EXPECT_EQ(Assemble(kChat, {kOpen, kArgs, kFinish}, limits).error.code,
            "input_too_large");
  limits.max_bytes += kFinish.size();
  EXPECT_EQ(Assemble(kChat, {kOpen, kArgs, kFinish}, limits).error.code, "");
}

TEST(Limits, AnEventOverTheJsonCapIsInputTooLarge) {
  Limits limits;
  limits.json.max_bytes = 20;
  EXPECT_EQ(Assemble(kChat, {kOpen}, limits).error.code, "input_too_large");
}

TEST(Limits, EventsAfterARefusalAreCountedNotKept) {
  auto assembler = Assembler::Create(kChat, Limits());
  assembler->Add(kOpen);
  EXPECT_FALSE(assembler->refused());
  const size_t opened = assembler->assembled_bytes();
  assembler->Add("not json");
  EXPECT_TRUE(assembler->refused());  // The answer is fixed from here on.
  for (int i = 0; i < 1000; ++i) assembler->Add(kArgs);
  EXPECT_TRUE(assembler->refused());
  EXPECT_EQ(assembler->events(), 1002u);
  EXPECT_EQ(assembler->assembled_bytes(), opened);
  EXPECT_EQ(assembler->Finish().error.pointer, "/events/1");
}

// Memory follows the content, not the number or size of events.
TEST(Memory, AssembledBytesAreTheContent) {
  Limits limits;
  limits.max_bytes = size_t{64} << 20;
  auto assembler = Assembler::Create(kChat, limits);
  assembler->Add(kOpen);
  const std::string piece =
      Chunk(R"({"tool_calls":[{"index":0,"function":{"arguments":"x"}}]})");
  for (int i = 0; i < 10000; ++i) assembler->Add(piece);
  EXPECT_EQ(assembler->bytes(), kOpen.size() + 10000 * piece.size());
  EXPECT_EQ(assembler->assembled_bytes(), std::string("c1f").size() + 10000);
  EXPECT_EQ(assembler->Finish().error.code, "truncated_stream");
}

TEST(Formats, NamesParseInEveryAcceptedSpelling) {
  for (Format f : {kChat, kResp, kAnth, kGem}) {
    const std::string name(FormatName(f));
    EXPECT_EQ(ParseFormat(name), f);
    std::string upper = name;
    for (char& ch : upper) ch = static_cast<char>(std::toupper(ch));
    EXPECT_EQ(ParseFormat(upper), f);
    EXPECT_EQ(ParseFormat("STREAM_FORMAT_" + upper), f);
    EXPECT_EQ(SourceName(f), "stream_" + name);
  }
  for (const char* bad : {"", "unspecified", "STREAM_FORMAT_UNSPECIFIED",
                          "openai", "gemini2", "stream_format_"}) {
    EXPECT_EQ(ParseFormat(bad), std::nullopt) << bad;
  }
  EXPECT_EQ(Assembler::Create(Format::kUnspecified, Limits()), nullptr);
}

TEST(Errors, MessagesNameTheProblem) {
  Assembly cut = Assemble(kChat, {kOpen, kArgs});
  EXPECT_THAT(cut.error.message, HasSubstr("without its completion event"));
  EXPECT_EQ(cut.error.pointer, "");
  Assembly error = Assemble(
      kAnth,
      {kStart,
       R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"});
  EXPECT_THAT(error.error.message, HasSubstr("Overloaded"));
}

}  // namespace
}  // namespace stream
}  // namespace toolgate
