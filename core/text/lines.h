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

// The start of the line after the one holding `pos` (past its line
// ending), or text.size() on the last line.
size_t NextLine(absl::string_view text, size_t pos);

// The start of the line holding `pos`. A `pos` on a line ending belongs to
// the line that ending ends.
size_t LineStart(absl::string_view text, size_t pos);

// True when `pos` starts a line: 0, or right after a line ending (the "\n"
// of "\r\n" is inside the ending, not a line start).
bool IsLineStart(absl::string_view text, size_t pos);

// The text of the line starting at `begin`, without its line ending.
absl::string_view LineText(absl::string_view text, size_t begin);

}  // namespace text
}  // namespace toolgate

#endif  // TOOLGATE_CORE_TEXT_LINES_H_
