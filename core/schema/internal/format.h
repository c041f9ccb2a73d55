// "format" checks for when format is an assertion (CompileOptions
// .format_assertion). Each follows its RFC closely enough to refuse what a
// model would plausibly get wrong; none accepts an empty string.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_SCHEMA_INTERNAL_FORMAT_H_
#define TOOLGATE_CORE_SCHEMA_INTERNAL_FORMAT_H_

#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

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

// Every format name toolgate recognises: the ones it asserts, the other
// formats of draft 2020-12 and draft-07 (idn-email, iri, uri-template,
// ...), and OpenAPI's (int32, int64, float, double, byte, binary,
// password). Anything else is probably a typo or a private extension.
absl::Span<const absl::string_view> KnownFormatNames();

// True when `s` is a valid instance of `format` (kUnknown: always true).
bool CheckFormat(Format format, absl::string_view s);

}  // namespace internal
}  // namespace schema
}  // namespace toolgate

#endif  // TOOLGATE_CORE_SCHEMA_INTERNAL_FORMAT_H_
