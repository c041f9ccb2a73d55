// Line-level recognisers for the CommonMark block parser (commonmark.h).
//
// Each looks at one line (without its line ending) from byte `p` and
// answers as cmark 0.30.2's scanners do on that line. A NUL byte is an
// ordinary character here: cmark replaces it by U+FFFD before scanning.
// Internal to core/text. Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_TEXT_COMMONMARK_LINES_H_
#define TOOLGATE_CORE_TEXT_COMMONMARK_LINES_H_

#include <cstddef>

#include "absl/strings/string_view.h"

namespace toolgate {
namespace text {
namespace internal {

// Space, tab, vertical tab, form feed, CR, LF, or the end of the line.
bool IsSpaceOrEnd(absl::string_view line, size_t p);

// "#" to "######" then white space or the line end.
bool IsAtxHeadingStart(absl::string_view line, size_t p);

// Length of the backtick or tilde run opening a fence at `p`, or 0.
size_t OpenFenceLength(absl::string_view line, size_t p);

// Length of a run of at least 3 `c` at `p` followed only by spaces and
// tabs, or 0.
size_t CloseFenceLength(absl::string_view line, size_t p, char c);

// 1 for a "===" underline, 2 for "---", else 0.
int SetextLevel(absl::string_view line, size_t p);

bool IsThematicBreak(absl::string_view line, size_t p);

// HTML block start conditions 1 to 6, or 0.
int HtmlBlockStart(absl::string_view line, size_t p);

// Start condition 7: a complete open or closing tag alone on the line.
bool IsHtmlBlockStart7(absl::string_view line, size_t p);

// The end condition of an HTML block of `type` (1 to 5) occurs in the line
// from `p`.
bool HtmlBlockEnds(int type, absl::string_view line, size_t p);

struct ListMarker {
  size_t length = 0;  // Bytes of the marker ("-", "12.").
  bool ordered = false;
  char delimiter = 0;  // The bullet character, or '.' / ')'.
};

// A list item marker at `p`. Interrupting a paragraph, an empty item or an
// ordered list not starting at 1 is no list item.
bool ParseListMarker(absl::string_view line, size_t p,
                     bool interrupts_paragraph, ListMarker* marker);

}  // namespace internal
}  // namespace text
}  // namespace toolgate

#endif  // TOOLGATE_CORE_TEXT_COMMONMARK_LINES_H_
