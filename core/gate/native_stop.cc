#include "core/gate/native_stop.h"

#include <string>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "core/gate/unchecked_calls.h"

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

bool IsArgumentKey(const std::string& key) {
  for (absl::string_view arguments : kArgumentKeys) {
    if (key == arguments) return true;
  }
  return false;
}

// Depth-first search of the members below the top level for a signal
// (stop_reason, finish_reason, finishReason: a "status" is too common a
// word to mean a stop below the top) that refuses the output. A call's own
// arguments (the argument member of an object with a "name") are data,
// never read for signals; an object with a name and arguments that is not
// a call read is refused anyway (unchecked_calls.h).
class NestedWalker {
 public:
  // Below a top-level array (a bare tool_calls array): every element.
  std::optional<ReadError> Elements(const Json& array) { return Walk(array); }

  std::optional<ReadError> Members(const Json& object) {
    const bool call = object.contains("name");
    for (const auto& [key, value] : object.get_ref<const Json::object_t&>()) {
      if (call && IsArgumentKey(key)) continue;
      path_.push_back(Step{key, 0});
      std::optional<ReadError> found = Walk(value);
      path_.pop_back();
      if (found.has_value()) return found;
    }
    return std::nullopt;
  }

 private:
  struct Step {
    absl::string_view key;  // Empty for an array index.
    size_t index;
  };

  std::optional<ReadError> Walk(const Json& node) {
    if (node.is_array()) {
      for (size_t i = 0; i < node.size(); ++i) {
        path_.push_back(Step{{}, i});
        std::optional<ReadError> found = Walk(node[i]);
        path_.pop_back();
        if (found.has_value()) return found;
      }
      return std::nullopt;
    }
    if (!node.is_object()) return std::nullopt;
    for (StopSignal signal : stream::kStopSignals) {
      if (signal == StopSignal::kResponsesStatus) continue;
      if (node.contains(std::string(stream::StopSignalKey(signal)))) {
        if (auto refused = CheckSignal(node, signal, Pointer())) return refused;
      }
    }
    return Members(node);
  }

  // Built only on a hit: most walks find nothing.
  std::string Pointer() const {
    std::string out;
    for (const Step& step : path_) {
      if (step.key.data() == nullptr) {
        absl::StrAppend(&out, "/", step.index);
      } else {
        absl::StrAppend(&out, "/", EscapePointerToken(step.key));
      }
    }
    return out;
  }

  absl::InlinedVector<Step, 16> path_;
};

}  // namespace

std::optional<ReadError> FindStopRefusal(const Json& doc) {
  if (doc.is_array()) return NestedWalker().Elements(doc);
  if (!doc.is_object()) return std::nullopt;
  for (StopSignal signal : stream::kStopSignals) {
    if (auto refused = CheckSignal(doc, signal, "")) return refused;
  }
  // As a Gemini stream is refused for it (core/stream/gemini.cc).
  if (auto feedback = doc.find("promptFeedback");
      feedback != doc.end() && feedback->is_object()) {
    auto blocked = feedback->find("blockReason");
    if (blocked != feedback->end() && !blocked->is_null()) {
      return Refusal(stream::kStreamError, "/promptFeedback/blockReason",
                     "the prompt was blocked (promptFeedback)");
    }
  }
  return NestedWalker().Members(doc);
}

std::optional<bool> ReadPlainStopMember(absl::string_view key,
                                        PlainScanner* scan) {
  if (key == "promptFeedback") return false;
  const std::optional<StopSignal> signal = stream::StopSignalOfKey(key);
  if (!signal.has_value()) return std::nullopt;
  Token value;
  return scan->String(&value) && !value.escaped &&
         stream::ClassifyStop(*signal, value.raw) == StopKind::kComplete;
}

}  // namespace gate_internal
}  // namespace toolgate
