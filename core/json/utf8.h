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

// Length of the well-formed UTF-8 sequence at `p` (a non-ASCII byte; `end`
// bounds the text), 0 when ill-formed: no overlongs, no surrogates,
// nothing above U+10FFFF, no cut sequences. Inline: the parser calls it per
// non-ASCII character.
inline size_t Utf8SequenceLength(const char* p, const char* end) {
  const auto byte = [p](size_t k) { return static_cast<unsigned char>(p[k]); };
  const unsigned char b0 = byte(0);
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF;  // Allowed range of the second byte.
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    if (b0 == 0xE0) lo = 0xA0;  // Overlong.
    if (b0 == 0xED) hi = 0x9F;  // UTF-16 surrogates.
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    if (b0 == 0xF0) lo = 0x90;  // Overlong.
    if (b0 == 0xF4) hi = 0x8F;  // Above U+10FFFF.
  } else {
    return 0;
  }
  if (static_cast<size_t>(end - p) < len) return 0;
  if (byte(1) < lo || byte(1) > hi) return 0;
  for (size_t k = 2; k < len; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return 0;
  }
  return len;
}

}  // namespace toolgate

#endif  // TOOLGATE_CORE_JSON_UTF8_H_
