#include "core/gate/native_stop.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace toolgate {
namespace gate_internal {
namespace {

using stream::StopKind;
using stream::StopSignal;

ReadError Refusal(absl::string_view code, std::string pointer,
                  std::string message) {
  return ReadError{std::string(code), std::move(pointer), std::move(message)};
}

// The member of `obj` that carries `signal`, judged; nullopt when it is
// absent or says complete.
std::optional<ReadError> CheckSignal(const Json& obj, StopSignal signal,
                                     const std::string& where) {
  const absl::string_view key = stream::StopSignalKey(signal);
  auto it = obj.find(std::string(key));
  if (it == obj.end()) return std::nullopt;
  std::string pointer = absl::StrCat(where, "/", key);
  if (it->is_null()) {
    return Refusal(stream::kTruncatedOutput, std::move(pointer),
                   absl::StrCat(key,
                                " is null: the model had not stopped (a "
                                "response still being generated), so its "
                                "output may be cut"));
  }
  if (!it->is_string()) {
    return Refusal("unrecognized_output", std::move(pointer),
                   absl::StrCat(key, " must be a string, got ",
                                JsonTypeName(*it)));
  }
  const std::string& value = it->get_ref<const std::string&>();
  const StopKind kind = stream::ClassifyStop(signal, value);
  if (kind == StopKind::kComplete) return std::nullopt;
  const absl::string_view code = stream::StopCode(kind);
  return Refusal(code.empty() ? "unrecognized_output" : code,
                 std::move(pointer), stream::StopMessage(signal, value, kind));
}

std::optional<ReadError> CheckObject(const Json& obj,
                                     const std::string& where) {
  for (StopSignal signal : stream::kStopSignals) {
    if (auto refused = CheckSignal(obj, signal, where)) return refused;
  }
  return std::nullopt;
}

}  // namespace

std::optional<ReadError> FindStopRefusal(const Json& doc) {
  if (!doc.is_object()) return std::nullopt;
  if (auto refused = CheckObject(doc, "")) return refused;
  // As a Gemini stream is refused for it (core/stream/gemini.cc).
  if (auto feedback = doc.find("promptFeedback");
      feedback != doc.end() && feedback->is_object()) {
    auto blocked = feedback->find("blockReason");
    if (blocked != feedback->end() && !blocked->is_null()) {
      return Refusal(stream::kStreamError, "/promptFeedback/blockReason",
                     "the prompt was blocked (promptFeedback)");
    }
  }
  for (const char* envelope : {"choices", "candidates"}) {
    auto list = doc.find(envelope);
    if (list == doc.end() || !list->is_array()) continue;
    for (size_t i = 0; i < list->size(); ++i) {
      const Json& element = (*list)[i];
      if (!element.is_object()) continue;
      if (auto refused =
              CheckObject(element, absl::StrCat("/", envelope, "/", i))) {
        return refused;
      }
    }
  }
  return std::nullopt;
}

std::optional<bool> PlainStops::Member(absl::string_view key,
                                       PlainScanner* scan) {
  if (key == "promptFeedback") return false;
  const std::optional<StopSignal> signal = stream::StopSignalOfKey(key);
  if (!signal.has_value()) return std::nullopt;
  std::optional<Token>& token = tokens_[static_cast<int>(*signal)];
  token.emplace();
  return scan->String(&*token);
}

bool PlainStops::AllComplete(const JsonLimits& limits) const {
  std::string value;
  for (int i = 0; i < kCount; ++i) {
    if (!tokens_[i].has_value()) continue;
    if (!Decode(*tokens_[i], limits, &value) ||
        stream::ClassifyStop(stream::kStopSignals[i], value) !=
            StopKind::kComplete) {
      return false;
    }
  }
  return true;
}

}  // namespace gate_internal
}  // namespace toolgate
