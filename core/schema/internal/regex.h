// ECMA-262 regular expressions (what JSON Schema specifies) translated for
// RE2, which runs in linear time. What RE2 cannot run (backreferences,
// lookaround) is refused, never handed to a backtracking engine.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_SCHEMA_INTERNAL_REGEX_H_
#define TOOLGATE_CORE_SCHEMA_INTERNAL_REGEX_H_

#include <cstddef>
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

// Compiles a pattern already in RE2 syntax (TranslateEcmaRegex's output).
// A pattern RE2 finds too large (its own max_mem bound, or a repetition
// count past 1,000 once nested counts multiply) is refused with
// "schema_too_complex".
absl::StatusOr<std::unique_ptr<RE2>> CompileRe2(const std::string& translated,
                                                absl::string_view pointer);

// Whether `s` is an ECMA-262 pattern RE2 can parse: what format "regex"
// asserts of a string in an instance. Never compiles a full program: a
// valid pattern too large to compile cheaply (RE2's max_mem set small) is
// still a valid pattern, so checking one costs microseconds per byte
// whatever it would compile to.
bool IsEcmaRegex(absl::string_view s);

// As CompileEcmaRegex, but identical patterns share one RE2 process-wide
// (regex_cache.cc): an RE2 costs from ~3 KB to hundreds of KB (a Unicode
// class, ".{1,255}"), and the same id, date or code pattern recurs across
// the tools of a manifest and across the snapshots of similar manifests.
// The cache holds weak references only: an RE2 is freed with the last
// schema using it, so the cache's size follows the live schemas (which
// the snapshot store bounds), never its own history. A pattern whose
// program has more than `max_instructions` instructions
// (RE2::ProgramSize) is refused with "schema_too_complex".
// `*compiled_now` (if given) says whether it was compiled by this call
// rather than found.
absl::StatusOr<std::shared_ptr<const RE2>> InternEcmaRegex(
    absl::string_view pattern, absl::string_view pointer, int max_instructions,
    bool* compiled_now = nullptr);

// Approximate heap bytes of a compiled RE2 once it has matched (it builds
// its matching state on first use), calibrated with mallinfo2.
size_t RegexBytes(const RE2& re);

// How many distinct patterns the intern cache holds alive, for tests.
size_t InternedRegexCount();

}  // namespace internal
}  // namespace schema
}  // namespace toolgate

#endif  // TOOLGATE_CORE_SCHEMA_INTERNAL_REGEX_H_
