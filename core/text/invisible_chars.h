// Characters that hide text from a byte scan but not from a reader: the one
// definition of the invisible set. "ignore previous instructions" with a
// U+200B inside a word still reads as itself to a model, and an AWS key
// split by U+2060 is still the key once pasted. Used by the output gate's
// injection scan (core/output) and by the credential and leak scans of
// arguments (core/policy).
//
// Thread-safe: pure functions.
#ifndef TOOLGATE_CORE_TEXT_INVISIBLE_CHARS_H_
#define TOOLGATE_CORE_TEXT_INVISIBLE_CHARS_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace toolgate {
namespace text {

struct ScanText {
  std::string text;
  // (offset in `text`, bytes the source is ahead of `text` from there on),
  // ascending: where the two part ways.
  std::vector<std::pair<size_t, size_t>> shifts;

  // Byte offset in the source of text[i] (i may be text.size()).
  size_t SourceOffset(size_t i) const;
};

// Fills `out` and returns true when `source` holds any of:
//   removed:  Unicode Default_Ignorable_Code_Point characters (soft hyphen
//             U+00AD, zero-width space/non-joiner/joiner U+200B-U+200D,
//             LRM/RLM, bidi embeddings and isolates, word joiner and
//             invisible operators U+2060-U+206F, BOM U+FEFF, combining
//             grapheme joiner, variation selectors, Hangul fillers, tag
//             characters U+E0000-U+E0FFF, ...), every other format (Cf)
//             character, and control characters but tab and line breaks;
//   a space:  non-ASCII spaces (U+00A0, U+1680, U+2000-U+200A, U+202F,
//             U+205F, U+3000) and U+2800 BRAILLE PATTERN BLANK;
//   "\n":     CR, VT, FF, NEL (U+0085), U+2028, U+2029 (so a role marker
//             after any line break starts a line).
// Returns false and leaves `out` alone when there is none: the common case
// is one pass (eight bytes at a time over printable ASCII) without a copy.
// Bytes that are not UTF-8 are kept as they are. The result is never
// longer than `source`.
bool NormalizeForScan(absl::string_view source, ScanText* out);

// Printable ASCII, tab and LF: the bytes NormalizeForScan leaves alone by
// themselves. A text of only these is never changed, so a scanner that
// reads every byte anyway can note whether it saw another and call
// NormalizeForScan only then.
constexpr bool IsPlainByte(unsigned char b) {
  return (b >= 0x20 && b < 0x7F) || b == '\t' || b == '\n';
}

// The code point of the UTF-8 sequence at s[i] and its length in *len; a
// byte that does not start a complete sequence is U+FFFD of length 1.
// Lenient (overlongs decode): for classifying text, not for validating it.
char32_t DecodeUtf8At(absl::string_view s, size_t i, size_t* len);

// The bidirectional formatting characters, which reorder how the text
// around them is displayed (U+202E makes "txt.exe" read "exe.txt"):
// ALM U+061C, LRM U+200E, RLM U+200F, the embeddings and overrides
// U+202A-U+202E and the isolates U+2066-U+2069. All of them are in the
// set NormalizeForScan removes.
constexpr bool IsBidiControl(char32_t c) {
  return c == 0x061C || c == 0x200E || c == 0x200F ||
         (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

}  // namespace text
}  // namespace toolgate

#endif  // TOOLGATE_CORE_TEXT_INVISIBLE_CHARS_H_
