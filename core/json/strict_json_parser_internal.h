// The fast path of ParseStrictJson: a single-pass parser over the raw bytes
// that builds the nlohmann DOM directly.
//
// Why not nlohmann's own parser: its lexer reads one character at a time
// through an input adapter, copies every token into a buffer (and every
// character into a second one for error messages), and hands strings to the
// DOM builder as temporaries; with the strict SAX builder on top that was
// ~2/3 of toolgate's bytes-to-verdict time (bench/schema/RESULTS.md).
//
// This parser only decides accept/refuse. It accepts exactly what the SAX
// implementation (strict_json_sax_internal.h) accepts, builds the same
// value, and, by design, refuses one thing more: a NUL byte outside strings,
// which nlohmann's lexer takes for the end of the input (so "{}\0junk"
// parsed as {}). strict_json_differential_test holds it to that.
//
// Not part of the public API: include strict_json.h instead.
#ifndef TOOLGATE_CORE_JSON_STRICT_JSON_PARSER_INTERNAL_H_
#define TOOLGATE_CORE_JSON_STRICT_JSON_PARSER_INTERNAL_H_

#include <cstddef>

#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace toolgate {
namespace json_internal {

// Parses exactly one JSON value (RFC 8259, an optional leading UTF-8 BOM as
// nlohmann allows) surrounded only by JSON whitespace, nesting at most
// `max_depth` arrays and objects, into `*out`. Refuses duplicate keys,
// numbers outside double range, lone surrogates, invalid UTF-8, control
// characters in strings and trailing bytes. Numbers are stored as nlohmann
// stores them: non-negative integers as number_unsigned, negative ones as
// number_integer ("-0" too), integers beyond 64 bits and anything with a
// fraction or exponent as number_float.
//
// Returns false on refusal, with `*error_offset` set to the byte offset
// where parsing stopped and `*out` unspecified. May throw std::bad_alloc.
bool FastParseJson(absl::string_view text, int max_depth, nlohmann::json* out,
                   size_t* error_offset);

}  // namespace json_internal
}  // namespace toolgate

#endif  // TOOLGATE_CORE_JSON_STRICT_JSON_PARSER_INTERNAL_H_
