// Strict JSON for every input toolgate reads.
//
// Permissive parsing is a false-green factory: a parser that keeps the last of
// two duplicate keys while the executor keeps the first lets a value run that
// nobody validated. ParseStrictJson therefore refuses, rather than repairs:
// duplicate object keys, nesting deeper than a limit, numbers a double does
// not hold as written (below), NaN/Infinity, lone surrogate escapes, invalid
// UTF-8, trailing bytes after the value, and input larger than a size cap.
//
// Numbers. Integers from -2^63 to 2^64-1 are kept exactly. Any other number
// is kept as the nearest double, and is accepted only when that double,
// written in shortest round-trip form, is the number the literal denotes:
// 0.1, 1.0, 1e2, 5e-324 and 0.30000000000000004 are; 1e400 and 1e-400
// (out of range: infinity, or 0 for a non-zero number) and
// 9007199254740992.5 or 0.10000000000000001 (inexact: read as a different
// number) are not. So the shortest form, which is what toolgate checks a
// number as and writes back, is exactly the number written, and comparing
// accepted numbers as doubles agrees with comparing the decimals written.
// Up to 15 significant digits always pass in the normal range.
//
// Errors are absl::Status (INVALID_ARGUMENT) carrying a stable snake_case code
// and the JSON Pointer where parsing stopped; read them with JsonErrorCode and
// JsonErrorPointer. No exception escapes this file.
//
// Thread-safe: all functions are pure.
#ifndef TOOLGATE_CORE_JSON_STRICT_JSON_H_
#define TOOLGATE_CORE_JSON_STRICT_JSON_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace toolgate {

using Json = nlohmann::json;

struct JsonLimits {
  // Largest accepted input, in bytes.
  size_t max_bytes = 200000;
  // Deepest accepted nesting of arrays and objects (the top level is 1).
  int max_depth = 256;
};

// Stable error codes attached to the statuses ParseStrictJson returns.
inline constexpr absl::string_view kInputTooLarge = "input_too_large";
inline constexpr absl::string_view kInvalidJson = "invalid_json";
inline constexpr absl::string_view kTruncatedJson = "truncated_json";
inline constexpr absl::string_view kEmptyInput = "empty_input";
inline constexpr absl::string_view kDuplicateKey = "duplicate_key";
inline constexpr absl::string_view kNestingTooDeep = "nesting_too_deep";
inline constexpr absl::string_view kNumberOutOfRange = "number_out_of_range";
// A number the nearest double would change (9007199254740992.5 read as
// 9007199254740992); see "Numbers" above.
inline constexpr absl::string_view kNumberInexact = "number_inexact";

// Parses exactly one JSON value (RFC 8259) from `text`, surrounded only by
// JSON whitespace.
absl::StatusOr<Json> ParseStrictJson(absl::string_view text,
                                     const JsonLimits& limits = JsonLimits());

// The code of a status returned by ParseStrictJson (or any status built with
// MakeJsonError); "invalid_json" when the status carries none.
std::string JsonErrorCode(const absl::Status& status);

// The JSON Pointer attached to a status, "" when none.
std::string JsonErrorPointer(const absl::Status& status);

// Builds an INVALID_ARGUMENT status with a code and pointer attached.
absl::Status MakeJsonError(absl::string_view code, absl::string_view pointer,
                           absl::string_view message);

// Canonical serialization: object keys sorted by their UTF-8 bytes, no
// insignificant whitespace, numbers in shortest round-trip form (in
// nlohmann's layout: 1.0, 0.0001, 1e-05). Equal values always serialize to
// equal bytes, and ParseStrictJson reads back exactly the value.
std::string CanonicalJson(const Json& value);

// Serialization bounded to `max_chars` characters, for echoing values into
// violations without copying a whole document ("..." marks the cut).
std::string TruncatedJson(const Json& value, size_t max_chars = 120);

// RFC 6901 escaping of one reference token ("~" -> "~0", "/" -> "~1").
std::string EscapePointerToken(absl::string_view token);

// Name of a JSON value's type as JSON Schema spells it ("integer" for whole
// numbers stored as integers, "number" otherwise).
absl::string_view JsonTypeName(const Json& value);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_JSON_STRICT_JSON_H_
