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
#include "core/policy/argument_violation.h"

namespace toolgate {

// Calls visit(value, concrete pointer) for each value reached, in document
// order; `*` tokens appear in the concrete pointer as the index or member.
void ForEachAt(Json& arguments, absl::string_view pointer,
               const std::function<void(Json&, const std::string&)>& visit);
void ForEachAt(
    const Json& arguments, absl::string_view pointer,
    const std::function<void(const Json&, const std::string&)>& visit);

// Where a string sits. The JSON Pointer is built only when asked for: most
// strings are scanned and found clean, and building every value's pointer
// allocated on every call of every write tool.
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

// Calls visit(text, path, part) for each string in `arguments`, in
// document order: every string value (kValue, at its pointer) and every
// object member's name (kMemberName, before the member's value, at the
// member's pointer: the name is the pointer's last token, so the pointer
// holds the name as sent, ~ and / escaped).
using StringVisit = std::function<void(const std::string&, const ValuePath&,
                                       policy::ArgumentPart)>;
void ForEachString(const Json& arguments, const StringVisit& visit);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_GATE_ARGUMENT_WALK_H_
