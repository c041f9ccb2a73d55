#include "core/stream/stop_signal.h"

#include <string>

#include "gtest/gtest.h"

namespace toolgate {
namespace stream {
namespace {

struct Case {
  StopSignal signal;
  std::string value;
  StopKind kind;
  std::string code;  // StopCode(kind).
};

class Classify : public testing::TestWithParam<Case> {};

// Every value each provider documents, and values it does not.
TEST_P(Classify, EveryDocumentedValue) {
  const Case& c = GetParam();
  EXPECT_EQ(ClassifyStop(c.signal, c.value), c.kind) << c.value;
  EXPECT_EQ(StopCode(c.kind), c.code);
  if (c.kind != StopKind::kComplete) {
    EXPECT_NE(StopMessage(c.signal, c.value, c.kind).find(c.value),
              std::string::npos);
  }
}

constexpr StopSignal kAnthropic = StopSignal::kAnthropicStopReason;
constexpr StopSignal kChat = StopSignal::kOpenAIFinishReason;
constexpr StopSignal kGemini = StopSignal::kGeminiFinishReason;
constexpr StopSignal kResponses = StopSignal::kResponsesStatus;
constexpr StopKind kOk = StopKind::kComplete;
constexpr StopKind kCut = StopKind::kTruncated;
constexpr StopKind kFail = StopKind::kFailed;
constexpr StopKind kUnknown = StopKind::kUnknown;

INSTANTIATE_TEST_SUITE_P(
    Table, Classify,
    testing::Values(
        Case{kAnthropic, "end_turn", kOk, ""},
        Case{kAnthropic, "tool_use", kOk, ""},
        Case{kAnthropic, "stop_sequence", kOk, ""},
        Case{kAnthropic, "max_tokens", kCut, "truncated_output"},
        Case{kAnthropic, "pause_turn", kCut, "truncated_output"},
        Case{kAnthropic, "model_context_window_exceeded", kCut,
             "truncated_output"},
        Case{kAnthropic, "refusal", kFail, "stream_error"},
        Case{kAnthropic, "End_turn", kUnknown, ""},
        Case{kAnthropic, "tool_calls", kUnknown, ""},
        Case{kAnthropic, "", kUnknown, ""},
        Case{kChat, "stop", kOk, ""}, Case{kChat, "tool_calls", kOk, ""},
        Case{kChat, "length", kCut, "truncated_output"},
        Case{kChat, "content_filter", kCut, "truncated_output"},
        Case{kChat, "function_call", kUnknown, ""},
        Case{kChat, "end_turn", kUnknown, ""},
        Case{kChat, "STOP", kUnknown, ""}, Case{kGemini, "STOP", kOk, ""},
        Case{kGemini, "MAX_TOKENS", kCut, "truncated_output"},
        Case{kGemini, "SAFETY", kFail, "stream_error"},
        Case{kGemini, "RECITATION", kFail, "stream_error"},
        Case{kGemini, "LANGUAGE", kFail, "stream_error"},
        Case{kGemini, "OTHER", kFail, "stream_error"},
        Case{kGemini, "BLOCKLIST", kFail, "stream_error"},
        Case{kGemini, "PROHIBITED_CONTENT", kFail, "stream_error"},
        Case{kGemini, "SPII", kFail, "stream_error"},
        Case{kGemini, "MALFORMED_FUNCTION_CALL", kFail, "stream_error"},
        Case{kGemini, "UNEXPECTED_TOOL_CALL", kFail, "stream_error"},
        Case{kGemini, "TOO_MANY_TOOL_CALLS", kFail, "stream_error"},
        Case{kGemini, "IMAGE_SAFETY", kFail, "stream_error"},
        Case{kGemini, "FINISH_REASON_UNSPECIFIED", kFail, "stream_error"},
        Case{kGemini, "stop", kFail, "stream_error"},
        Case{kGemini, "A_REASON_ADDED_LATER", kFail, "stream_error"},
        Case{kResponses, "completed", kOk, ""},
        Case{kResponses, "incomplete", kCut, "truncated_output"},
        Case{kResponses, "in_progress", kCut, "truncated_output"},
        Case{kResponses, "queued", kCut, "truncated_output"},
        Case{kResponses, "cancelled", kCut, "truncated_output"},
        Case{kResponses, "failed", kFail, "stream_error"},
        Case{kResponses, "complete", kUnknown, ""},
        Case{kResponses, "ok", kUnknown, ""}));

TEST(StopSignal, KeysRoundTrip) {
  for (StopSignal signal : kStopSignals) {
    EXPECT_EQ(StopSignalOfKey(StopSignalKey(signal)), signal);
  }
  EXPECT_EQ(StopSignalOfKey("stop_reason"), StopSignal::kAnthropicStopReason);
  EXPECT_EQ(StopSignalOfKey("finish_reason"), StopSignal::kOpenAIFinishReason);
  EXPECT_EQ(StopSignalOfKey("finishReason"), StopSignal::kGeminiFinishReason);
  EXPECT_EQ(StopSignalOfKey("status"), StopSignal::kResponsesStatus);
  for (const char* other : {"stopReason", "finish_reasons", "Status", "",
                            "stop_sequence", "content", "tool_calls"}) {
    EXPECT_FALSE(StopSignalOfKey(other).has_value()) << other;
  }
}

}  // namespace
}  // namespace stream
}  // namespace toolgate
