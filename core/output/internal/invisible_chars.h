// The text the prompt-injection scan reads: a string with the characters
// that hide words from a pattern but not from a model taken out or made
// plain. "ignore previous instructions" with a U+200B inside a word still
// reads as itself to the model. Internal to core/output.
//
// Thread-safe: pure functions.
#ifndef TOOLGATE_CORE_OUTPUT_INTERNAL_INVISIBLE_CHARS_H_
#define TOOLGATE_CORE_OUTPUT_INTERNAL_INVISIBLE_CHARS_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace toolgate {
namespace output {
namespace internal {

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
// is one pass without a copy. Bytes that are not UTF-8 are kept as they are.
bool NormalizeForScan(absl::string_view source, ScanText* out);

}  // namespace internal
}  // namespace output
}  // namespace toolgate

#endif  // TOOLGATE_CORE_OUTPUT_INTERNAL_INVISIBLE_CHARS_H_
