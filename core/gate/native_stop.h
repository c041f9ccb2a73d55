// Internal to core/gate: the provider's own stop signal in native output.
//
// A provider says why its model stopped: Anthropic's stop_reason, OpenAI
// Chat's finish_reason, Gemini's finishReason, a Responses object's
// status. An output that stopped for length, a refusal or a failure may
// hold a cut call that still parses (Anthropic documents that the last
// tool_use input may then be partial), so such an output is refused
// before any call is read, with the code a stream of the same content is
// refused with: the table is core/stream/stop_signal.h, shared with the
// stream assemblers.
//
// Where signals are read: at the top level of native_json (a message that
// carries one: Anthropic's, a Gemini candidate, a Responses object, or a
// message a client built from a completion with the completion's signal
// beside its members) any of the four, and a Gemini
// promptFeedback.blockReason; below it, wherever it is (a ChatCompletion's
// choices[i], a Gemini response's candidates[i], a framework's metadata),
// stop_reason, finish_reason and finishReason ("status" is too common a
// word to mean a stop below the top). A call's own arguments are data and
// never searched. A signal that is absent says nothing (the output is read
// as before); one that is null says the model had not stopped yet (a
// response still being generated): truncated_output; one that is not a
// string, or a value toolgate does not know, is unrecognized_output: an
// unknown is never read as complete.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_GATE_NATIVE_STOP_H_
#define TOOLGATE_CORE_GATE_NATIVE_STOP_H_

#include <optional>

#include "absl/strings/string_view.h"
#include "core/gate/calls.h"
#include "core/gate/plain_scanner.h"
#include "core/json/strict_json.h"
#include "core/stream/stop_signal.h"

namespace toolgate {
namespace gate_internal {

// The first signal in `doc` that refuses it, as the output's error;
// nullopt when every signal found says the output is complete, or none is
// there.
std::optional<ReadError> FindStopRefusal(const Json& doc);

// For a plain reader's top-level member `key`: nullopt when it carries no
// stop signal (the reader reads it itself); else whether its value was
// read and says complete (an unescaped string the table calls complete).
// Anything else (another value, an escaped one, a promptFeedback) is
// false: the plain reader then refuses, and the general reader decides
// and reports it.
std::optional<bool> ReadPlainStopMember(absl::string_view key,
                                        PlainScanner* scan);
inline std::optional<bool> ReadPlainStop(absl::string_view key,
                                         PlainScanner* scan) {
  // Inline, the test most keys fail: every signal key (and promptFeedback)
  // starts with one of these bytes.
  if (key.empty() || (key[0] != 's' && key[0] != 'f' && key[0] != 'p')) {
    return std::nullopt;
  }
  return ReadPlainStopMember(key, scan);
}

}  // namespace gate_internal
}  // namespace toolgate

#endif  // TOOLGATE_CORE_GATE_NATIVE_STOP_H_
