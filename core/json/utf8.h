// UTF-8 well-formedness (Unicode Table 3-7).
//
// Every string toolgate puts on the wire must be valid UTF-8 (protobuf
// refuses to serialize a string field that is not), yet error messages can
// quote raw input bytes. ToValidUtf8 is the guard at that boundary.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_JSON_UTF8_H_
#define TOOLGATE_CORE_JSON_UTF8_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace toolgate {

// Offset of the first byte that does not start a well-formed UTF-8 sequence
// (no overlongs, no surrogates, nothing above U+10FFFF, no truncated
// sequences, no lone continuation bytes); npos when all of `text` is valid.
size_t FindInvalidUtf8(absl::string_view text);

// `text` with every ill-formed byte replaced by U+FFFD.
std::string ToValidUtf8(absl::string_view text);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_JSON_UTF8_H_
