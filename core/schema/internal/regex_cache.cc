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

absl::StatusOr<std::shared_ptr<const RE2>> InternEcmaRegex(
    absl::string_view pattern, absl::string_view pointer) {
  auto translated = TranslateEcmaRegex(pattern);
  if (!translated.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("pattern at ", pointer,
                     " is refused: ", translated.status().message()));
  }
  if (auto live = Cache().Find(*translated)) return live;
  // Compiled outside the lock: a large pattern takes milliseconds.
  auto re = CompileRe2(*translated, pointer);
  if (!re.ok()) return re.status();
  return Cache().Insert(*translated,
                        std::shared_ptr<const RE2>(*std::move(re)));
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
