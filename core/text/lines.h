// Lines of model text, as CommonMark splits them.
//
// A line ends at "\n", at "\r\n" or at a lone "\r" (CommonMark 0.30,
// section 2.1). Every reader of toolgate's text (fences, candidates,
// repair) splits lines here, so none of them can be shown a line break that
// another one, or a markdown renderer, does not see: a lone "\r" that only
// a renderer honoured could hide a later code block from toolgate.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_TEXT_LINES_H_
#define TOOLGATE_CORE_TEXT_LINES_H_

#include <cstddef>

#include "absl/strings/string_view.h"

namespace toolgate {
namespace text {

inline bool IsLineEndChar(char c) { return c == '\n' || c == '\r'; }

// The first line-ending byte at or after `pos`, or text.size().
size_t LineEnd(absl::string_view text, size_t pos);

// The first byte past the line ending that starts at `end` (a LineEnd
// result): past "\r\n", "\r" or "\n"; text.size() stays.
inline size_t SkipLineEnding(absl::string_view text, size_t end) {
  if (end < text.size() && text[end] == '\r') ++end;
  if (end < text.size() && text[end] == '\n') ++end;
  return end;
}

// The start of the line after the one holding `pos` (past its line
// ending), or text.size() on the last line.
inline size_t NextLine(absl::string_view text, size_t pos) {
  return SkipLineEnding(text, LineEnd(text, pos));
}

// The start of the line holding `pos`. A `pos` on a line ending belongs to
// the line that ending ends.
size_t LineStart(absl::string_view text, size_t pos);

// True when `pos` starts a line: 0, or right after a line ending (the "\n"
// of "\r\n" is inside the ending, not a line start). Inline: scanners ask
// at every byte.
inline bool IsLineStart(absl::string_view text, size_t pos) {
  if (pos == 0) return true;
  if (pos > text.size()) return false;
  const char before = text[pos - 1];
  if (before == '\n') return true;
  return before == '\r' && (pos == text.size() || text[pos] != '\n');
}

// The text of the line starting at `begin`, without its line ending.
inline absl::string_view LineText(absl::string_view text, size_t begin) {
  return text.substr(begin, LineEnd(text, begin) - begin);
}

}  // namespace text
}  // namespace toolgate

#endif  // TOOLGATE_CORE_TEXT_LINES_H_
