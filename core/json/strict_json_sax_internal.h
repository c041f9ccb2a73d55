// The SAX implementation of ParseStrictJson (nlohmann's lexer and parser
// driving a strict DOM builder), kept for two jobs:
//
// * Error reports. The fast parser (strict_json_parser_internal.h) only
//   decides accept/refuse; when it refuses, ParseStrictJson asks this one for
//   the error, so codes, pointers and messages (which callers and tests quote,
//   e.g. "parse error at line 1, column 6: ...") stay exactly what they were.
// * The oracle of strict_json_differential_test.
//
// Not part of the public API: include strict_json.h instead.
#ifndef TOOLGATE_CORE_JSON_STRICT_JSON_SAX_INTERNAL_H_
#define TOOLGATE_CORE_JSON_STRICT_JSON_SAX_INTERNAL_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"

namespace toolgate {
namespace json_internal {

// The checks both parsers make before reading a byte: the size cap, and
// that there is a value at all (not only whitespace).
absl::Status CheckSizeAndPresence(absl::string_view text,
                                  const JsonLimits& limits);

// ParseStrictJson as it was before the fast parser: same contract, same
// statuses, about 3x the instructions to parse.
absl::StatusOr<Json> ParseStrictJsonWithSax(absl::string_view text,
                                            const JsonLimits& limits);

}  // namespace json_internal
}  // namespace toolgate

#endif  // TOOLGATE_CORE_JSON_STRICT_JSON_SAX_INTERNAL_H_
