// The value every argument checker returns when an argument is refused.
//
// Thread-safety: plain values and pure functions.
#ifndef TOOLGATE_CORE_POLICY_ARGUMENT_VIOLATION_H_
#define TOOLGATE_CORE_POLICY_ARGUMENT_VIOLATION_H_

#include <string>

#include "absl/strings/string_view.h"

namespace toolgate::policy {

struct ArgumentViolation {
  // Public contract (issue 12), e.g. "path_outside_root".
  std::string code;
  // Actionable for a model in one repair turn. Never echoes more than
  // kMaxEchoedValueBytes of the value, and never any of a secret or of a
  // protected text.
  std::string message;
};

// Which string of a call's arguments a scan read: a string value, or the
// name of an object member (a key), which a model fills as freely as a
// value.
enum class ArgumentPart { kValue, kMemberName };

// How a message names it: "the argument", "the member name".
absl::string_view ArgumentPartName(ArgumentPart part);

// How much of a refused value a message may quote.
inline constexpr size_t kMaxEchoedValueBytes = 64;

// `value` for a message: at most kMaxEchoedValueBytes of it (cut on a
// UTF-8 boundary), C-escaped so control bytes and quotes stay visible and
// bidi controls as \uXXXX so they cannot reorder the message, in double
// quotes. At most ~4 * 64 + 5 bytes.
std::string QuoteValue(absl::string_view value);

ArgumentViolation MakeViolation(absl::string_view code,
                                absl::string_view message);

}  // namespace toolgate::policy

#endif  // TOOLGATE_CORE_POLICY_ARGUMENT_VIOLATION_H_
