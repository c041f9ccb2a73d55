// Shared by the fuzz targets: invariant checks that abort with a message
// libFuzzer (and the corpus replay test) shows, and JSON helpers.
//
// A fuzz target here is not "does not crash": each one states what its
// component promises and aborts when an input breaks the promise. Aborting
// (rather than returning) is what makes libFuzzer save the input.
#ifndef TOOLGATE_TESTS_FUZZ_FUZZ_SUPPORT_H_
#define TOOLGATE_TESTS_FUZZ_FUZZ_SUPPORT_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"

// Aborts with `file:line`, the failed condition and a printf-style message.
#define FUZZ_CHECK(cond, ...)                                          \
  do {                                                                 \
    if (!(cond)) {                                                     \
      std::fprintf(stderr, "\nINVARIANT VIOLATED at %s:%d: %s\n  ",    \
                   __FILE__, __LINE__, #cond);                         \
      std::fprintf(stderr, __VA_ARGS__);                               \
      std::fprintf(stderr, "\n");                                      \
      std::abort();                                                    \
    }                                                                  \
  } while (0)

namespace toolgate {
namespace fuzz {

inline absl::string_view AsText(const uint8_t* data, size_t size) {
  return absl::string_view(reinterpret_cast<const char*>(data), size);
}

// Limits for re-reading what toolgate itself wrote: canonical JSON may be
// longer than the input it came from (1e5 -> 100000.0, escapes), so the
// size cap must not turn a round-trip check into a false alarm. The depth
// stays bounded by what the first parse accepted.
inline JsonLimits RereadLimits() {
  JsonLimits limits;
  limits.max_bytes = size_t{1} << 30;
  limits.max_depth = 100000;
  return limits;
}

// Canonical serialization of a value toolgate accepted must parse strictly
// again, to an equal value that serializes to the same bytes.
inline void CheckCanonicalRoundTrip(const Json& value, const char* what) {
  const std::string canonical = CanonicalJson(value);
  absl::StatusOr<Json> again = ParseStrictJson(canonical, RereadLimits());
  FUZZ_CHECK(again.ok(), "%s: canonical JSON does not re-parse strictly: %s\n  %s",
             what, std::string(again.status().message()).c_str(),
             canonical.substr(0, 400).c_str());
  FUZZ_CHECK(*again == value, "%s: canonical JSON re-parses to another value: %s",
             what, canonical.substr(0, 400).c_str());
  const std::string twice = CanonicalJson(*again);
  FUZZ_CHECK(twice == canonical,
             "%s: serialize -> parse -> serialize is not stable:\n  %s\n  %s",
             what, canonical.substr(0, 400).c_str(),
             twice.substr(0, 400).c_str());
}

// True when RFC 6901 `pointer` names a location inside `doc`.
inline bool PointerResolves(const Json& doc, const std::string& pointer) {
  try {
    return doc.contains(Json::json_pointer(pointer));
  } catch (const std::exception&) {
    return false;
  }
}

// Bit `bit` of the first byte, the "option" byte of targets that take
// options; the rest of the input is the text under test.
inline bool OptionBit(const uint8_t* data, size_t size, int bit) {
  return size > 0 && ((data[0] >> bit) & 1) != 0;
}

}  // namespace fuzz
}  // namespace toolgate

#endif  // TOOLGATE_TESTS_FUZZ_FUZZ_SUPPORT_H_
