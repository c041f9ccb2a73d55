// The values a policy pointer reaches in a call's arguments.
//
// A policy pointer is a JSON Pointer (RFC 6901) in which a `*` token
// matches every item of an array or member of an object, so one rule can
// cover "/recipients/*/email". A pointer that reaches nothing (a member the
// call left out) visits nothing: whether it must be present is the
// schema's decision.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_GATE_ARGUMENT_WALK_H_
#define TOOLGATE_CORE_GATE_ARGUMENT_WALK_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"

namespace toolgate {

// Calls visit(value, concrete pointer) for each value reached, in document
// order; `*` tokens appear in the concrete pointer as the index or member.
void ForEachAt(Json& arguments, absl::string_view pointer,
               const std::function<void(Json&, const std::string&)>& visit);
void ForEachAt(
    const Json& arguments, absl::string_view pointer,
    const std::function<void(const Json&, const std::string&)>& visit);

// Where a string value sits. The JSON Pointer is built only when asked
// for: most strings are scanned and found clean, and building every
// value's pointer allocated on every call of every write tool.
class ValuePath {
 public:
  std::string Pointer() const;

 private:
  friend class StringWalker;
  struct Step {
    const std::string* key;  // Null for an array index.
    size_t index;
  };
  absl::InlinedVector<Step, 16> steps_;  // Most arguments are shallow.
};

// Calls visit(text, path) for each string value in `arguments` (object
// keys are names, not values, and are not visited).
void ForEachStringValue(
    const Json& arguments,
    const std::function<void(const std::string&, const ValuePath&)>& visit);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_GATE_ARGUMENT_WALK_H_
