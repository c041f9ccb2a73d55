// The process-wide intern cache behind InternEcmaRegex (see regex.h).
//
// Thread-safety: WeakIntern is synchronized; an RE2 is immutable and safe
// to share between threads.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/schema/internal/regex.h"
#include "core/util/weak_intern.h"

namespace toolgate {
namespace schema {
namespace internal {
namespace {

WeakIntern<RE2>& Cache() {
  static auto* const cache = new WeakIntern<RE2>();
  return *cache;
}

}  // namespace

namespace {

// The bound checked on every use, found in the cache or compiled: a
// pattern another schema compiled under a larger bound is still refused.
absl::Status CheckSize(const RE2& re, absl::string_view pointer,
                       int max_instructions) {
  if (re.ProgramSize() <= max_instructions) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "pattern at ", pointer,
      " is refused: schema_too_complex: it compiles to ", re.ProgramSize(),
      " RE2 instructions, more than ", max_instructions,
      " (max_pattern_instructions); a counted repetition copies its operand "
      "(\\p{L}{300} is 300 copies of a ~1,200-instruction class): bound "
      "the length with maxLength instead"));
}

}  // namespace

absl::StatusOr<std::shared_ptr<const RE2>> InternEcmaRegex(
    absl::string_view pattern, absl::string_view pointer, int max_instructions,
    bool* compiled_now) {
  if (compiled_now != nullptr) *compiled_now = false;
  auto translated = TranslateEcmaRegex(pattern);
  if (!translated.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("pattern at ", pointer,
                     " is refused: ", translated.status().message()));
  }
  std::shared_ptr<const RE2> re = Cache().Find(*translated);
  if (re == nullptr) {
    // Compiled outside the lock: a large pattern takes milliseconds.
    auto compiled = CompileRe2(*translated, pointer);
    if (!compiled.ok()) return compiled.status();
    // Not interned when refused: nothing keeps a refused program alive.
    if (absl::Status s = CheckSize(**compiled, pointer, max_instructions);
        !s.ok()) {
      return s;
    }
    if (compiled_now != nullptr) *compiled_now = true;
    return Cache().Insert(*translated,
                          std::shared_ptr<const RE2>(*std::move(compiled)));
  }
  if (absl::Status s = CheckSize(*re, pointer, max_instructions); !s.ok()) {
    return s;
  }
  return re;
}

size_t RegexBytes(const RE2& re) {
  // RE2 20220601 measured with mallinfo2 once it has matched (its DFA
  // state is built on first use, about doubling it): ~2.5 KB fixed and
  // ~75 bytes per program instruction; 3.4-3.9 KB for a short id or email
  // pattern, 7 KB for a UUID, 400-450 KB for ".{1,255}" with ECMA's dot.
  // Large Unicode classes cost up to twice the estimate ("\p{L}+": 181 KB
  // measured). The DFA cache can grow further on hostile input, up to
  // RE2's max_mem.
  return 2560 + 75 * static_cast<size_t>(std::max(re.ProgramSize(), 0));
}

size_t InternedRegexCount() { return Cache().LiveCount(); }

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
