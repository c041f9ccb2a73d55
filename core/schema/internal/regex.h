// ECMA-262 regular expressions (what JSON Schema specifies) translated for
// RE2, which runs in linear time. What RE2 cannot run (backreferences,
// lookaround) is refused, never handed to a backtracking engine.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_SCHEMA_INTERNAL_REGEX_H_
#define TOOLGATE_CORE_SCHEMA_INTERNAL_REGEX_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "re2/re2.h"

namespace toolgate {
namespace schema {
namespace internal {

// ECMA-262 pattern -> RE2 syntax. The error message says what is refused.
absl::StatusOr<std::string> TranslateEcmaRegex(absl::string_view pattern);

// Translates and compiles; errors are INVALID_ARGUMENT naming `pointer`.
absl::StatusOr<std::unique_ptr<RE2>> CompileEcmaRegex(
    absl::string_view pattern, absl::string_view pointer);

}  // namespace internal
}  // namespace schema
}  // namespace toolgate

#endif  // TOOLGATE_CORE_SCHEMA_INTERNAL_REGEX_H_
