// Strict JSON for every input toolgate reads.
//
// Permissive parsing is a false-green factory: a parser that keeps the last of
// two duplicate keys while the executor keeps the first lets a value run that
// nobody validated. ParseStrictJson therefore refuses, rather than repairs:
// duplicate object keys, nesting deeper than a limit, numbers outside double
// range, NaN/Infinity, lone surrogate escapes, invalid UTF-8, trailing bytes
// after the value, and input larger than a size cap.
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
// insignificant whitespace, numbers in shortest round-trip form. Equal values
// always serialize to equal bytes.
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
