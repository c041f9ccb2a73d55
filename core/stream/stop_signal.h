// What a provider's stop signal says about the output it ends: the one
// table both streamed output (the assemblers) and unary native output
// (core/gate) read, so that a stream and a unary output of the same
// content are refused for the same reason, with the same code.
//
// Each provider says why its model stopped in a member of its own:
// Anthropic's stop_reason, OpenAI Chat's finish_reason, Gemini's
// finishReason, the OpenAI Responses object's status. A value that says
// the output is whole lets it be read; one that says it was cut, refused
// or failed refuses it; a value toolgate does not know refuses it too (the
// caller says with which code): an unknown is never read as complete.
//
// Thread-safety: pure functions over constant tables.
#ifndef TOOLGATE_CORE_STREAM_STOP_SIGNAL_H_
#define TOOLGATE_CORE_STREAM_STOP_SIGNAL_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace toolgate {
namespace stream {

// Codes of a refused output, shared with assembler.h.
inline constexpr absl::string_view kTruncatedOutput = "truncated_output";
inline constexpr absl::string_view kStreamError = "stream_error";

enum class StopSignal {
  kAnthropicStopReason,  // "stop_reason"
  kOpenAIFinishReason,   // "finish_reason" (Chat Completions)
  kGeminiFinishReason,   // "finishReason"
  kResponsesStatus,      // "status" (a Responses object)
};

// Every signal, in the enum's order (kStopSignals[i] is StopSignal(i)).
inline constexpr StopSignal kStopSignals[] = {
    StopSignal::kAnthropicStopReason, StopSignal::kOpenAIFinishReason,
    StopSignal::kGeminiFinishReason, StopSignal::kResponsesStatus};

// The member that carries `signal`.
absl::string_view StopSignalKey(StopSignal signal);

// The signal a member named `key` carries; nullopt for any other key.
// Inline: native output's readers ask it of every key they pass.
inline std::optional<StopSignal> StopSignalOfKey(absl::string_view key) {
  // By length and first byte, so that most keys cost no comparison.
  switch (key.size()) {
    case 6:
      if (key[0] == 's' && key == "status") return StopSignal::kResponsesStatus;
      break;
    case 11:
      if (key[0] == 's' && key == "stop_reason") {
        return StopSignal::kAnthropicStopReason;
      }
      break;
    case 12:
      if (key[0] == 'f' && key == "finishReason") {
        return StopSignal::kGeminiFinishReason;
      }
      break;
    case 13:
      if (key[0] == 'f' && key == "finish_reason") {
        return StopSignal::kOpenAIFinishReason;
      }
      break;
    default:
      break;
  }
  return std::nullopt;
}

enum class StopKind {
  kComplete,   // The model finished: end_turn, tool_use, stop_sequence;
               // stop, tool_calls; STOP; completed.
  kTruncated,  // The output is cut: max_tokens, pause_turn,
               // model_context_window_exceeded; length, content_filter;
               // MAX_TOKENS; incomplete, in_progress, queued, cancelled.
  kFailed,     // Refused or failed: refusal; every other Gemini reason
               // (SAFETY, RECITATION, MALFORMED_FUNCTION_CALL, ...);
               // failed.
  kUnknown,    // Not a value of the signal toolgate knows.
};

StopKind ClassifyStop(StopSignal signal, absl::string_view value);

// The violation code of a stop that refuses the output:
// truncated_output (kTruncated) or stream_error (kFailed); "" for
// kComplete and kUnknown (whose code depends on the reader).
absl::string_view StopCode(StopKind kind);

// A sentence for a refusing stop: which member said what, and what it
// means ("the model stopped for stop_reason \"max_tokens\": the output is
// cut").
std::string StopMessage(StopSignal signal, absl::string_view value,
                        StopKind kind);

}  // namespace stream
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STREAM_STOP_SIGNAL_H_
