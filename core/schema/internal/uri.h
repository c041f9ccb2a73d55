// RFC 3986 URI references: just enough to resolve $id and $ref.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_SCHEMA_INTERNAL_URI_H_
#define TOOLGATE_CORE_SCHEMA_INTERNAL_URI_H_

#include <string>

#include "absl/strings/string_view.h"

namespace toolgate {
namespace schema {
namespace internal {

// Resolves `ref` against `base` (RFC 3986 section 5.2, strict).
std::string ResolveUri(absl::string_view base, absl::string_view ref);

// Splits "abs#frag" into "abs" and "frag" (without '#').
void SplitFragment(absl::string_view uri, std::string* absolute,
                   std::string* fragment);

// Decodes %XX escapes (used on fragments before reading them as pointers).
std::string PercentDecode(absl::string_view s);

// True when `uri` has a scheme, i.e. is absolute.
bool HasScheme(absl::string_view uri);

}  // namespace internal
}  // namespace schema
}  // namespace toolgate

#endif  // TOOLGATE_CORE_SCHEMA_INTERNAL_URI_H_
