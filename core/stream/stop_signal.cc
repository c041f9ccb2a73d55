#include "core/stream/stop_signal.h"

#include "absl/strings/str_cat.h"
#include "core/json/strict_json.h"

namespace toolgate {
namespace stream {
namespace {

struct Value {
  absl::string_view value;
  StopKind kind;
};

// Per signal, every value its provider documents (SDK enums of
// anthropic-sdk, openai-python, google-genai). Gemini's list is not
// needed: every reason but STOP and MAX_TOKENS ends the output in a
// failure, the ones added later included.
constexpr Value kAnthropic[] = {
    {"end_turn", StopKind::kComplete},
    {"tool_use", StopKind::kComplete},
    {"stop_sequence", StopKind::kComplete},
    {"max_tokens", StopKind::kTruncated},
    {"pause_turn", StopKind::kTruncated},
    {"model_context_window_exceeded", StopKind::kTruncated},
    {"refusal", StopKind::kFailed},
};
// function_call (deprecated) is not known: legacy calls are not read.
constexpr Value kOpenAIChat[] = {
    {"stop", StopKind::kComplete},
    {"tool_calls", StopKind::kComplete},
    {"length", StopKind::kTruncated},
    {"content_filter", StopKind::kTruncated},
};
constexpr Value kResponses[] = {
    {"completed", StopKind::kComplete},
    {"incomplete", StopKind::kTruncated},
    {"in_progress", StopKind::kTruncated},
    {"queued", StopKind::kTruncated},
    {"cancelled", StopKind::kTruncated},
    {"failed", StopKind::kFailed},
};

static_assert(static_cast<int>(kStopSignals[3]) == 3,
              "kStopSignals follows the enum's order");

template <size_t N>
StopKind Find(const Value (&table)[N], absl::string_view value) {
  for (const Value& v : table) {
    if (v.value == value) return v.kind;
  }
  return StopKind::kUnknown;
}

}  // namespace

absl::string_view StopSignalKey(StopSignal signal) {
  switch (signal) {
    case StopSignal::kAnthropicStopReason:
      return "stop_reason";
    case StopSignal::kOpenAIFinishReason:
      return "finish_reason";
    case StopSignal::kGeminiFinishReason:
      return "finishReason";
    case StopSignal::kResponsesStatus:
      return "status";
  }
  return "";
}

StopKind ClassifyStop(StopSignal signal, absl::string_view value) {
  switch (signal) {
    case StopSignal::kAnthropicStopReason:
      return Find(kAnthropic, value);
    case StopSignal::kOpenAIFinishReason:
      return Find(kOpenAIChat, value);
    case StopSignal::kGeminiFinishReason:
      if (value == "STOP") return StopKind::kComplete;
      if (value == "MAX_TOKENS") return StopKind::kTruncated;
      return StopKind::kFailed;
    case StopSignal::kResponsesStatus:
      return Find(kResponses, value);
  }
  return StopKind::kUnknown;
}

absl::string_view StopCode(StopKind kind) {
  switch (kind) {
    case StopKind::kTruncated:
      return kTruncatedOutput;
    case StopKind::kFailed:
      return kStreamError;
    case StopKind::kComplete:
    case StopKind::kUnknown:
      break;
  }
  return "";
}

std::string StopMessage(StopSignal signal, absl::string_view value,
                        StopKind kind) {
  const std::string said =
      absl::StrCat(StopSignalKey(signal), " ", TruncatedJson(Json(std::string(value)), 60));
  switch (kind) {
    case StopKind::kTruncated:
      return absl::StrCat("the model stopped for ", said,
                          ": the output is cut or not complete");
    case StopKind::kFailed:
      return absl::StrCat("the model stopped for ", said,
                          ": it refused, was blocked or failed");
    case StopKind::kUnknown:
      return absl::StrCat("unknown ", said,
                          ": toolgate cannot tell whether the output is whole");
    case StopKind::kComplete:
      break;
  }
  return absl::StrCat("the model stopped for ", said);
}

}  // namespace stream
}  // namespace toolgate
