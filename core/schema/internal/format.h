// "format" checks for when format is an assertion (CompileOptions
// .format_assertion). Each follows its RFC closely enough to refuse what a
// model would plausibly get wrong; none accepts an empty string.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_SCHEMA_INTERNAL_FORMAT_H_
#define TOOLGATE_CORE_SCHEMA_INTERNAL_FORMAT_H_

#include <string>

#include "absl/strings/string_view.h"

namespace toolgate {
namespace schema {
namespace internal {

enum class Format {
  kUnknown = 0,  // Not asserted.
  kDateTime,
  kDate,
  kTime,
  kDuration,
  kEmail,
  kHostname,
  kIpv4,
  kIpv6,
  kUri,
  kUriReference,
  kUuid,
  kJsonPointer,
  kRegex,
};

Format FormatFromName(absl::string_view name);

// True when `s` is a valid instance of `format` (kUnknown: always true).
bool CheckFormat(Format format, absl::string_view s);

}  // namespace internal
}  // namespace schema
}  // namespace toolgate

#endif  // TOOLGATE_CORE_SCHEMA_INTERNAL_FORMAT_H_
