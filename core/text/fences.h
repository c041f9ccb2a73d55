// CommonMark fenced code blocks, as model output writes them.
//
// Both the tool-call extractor and the verdict reader take the LAST fenced
// JSON block as authoritative, so they must agree exactly on where a fence
// opens and closes. The rules (CommonMark 0.30, section 4.5, outside
// container blocks; commonmark.h checks the chosen block against the whole
// block structure):
//   * an opening fence is a line indented by at most 3 spaces, then at least
//     3 backticks or at least 3 tildes, then an optional info string; a
//     backtick fence's info string may not contain a backtick (otherwise the
//     line is inline code, not a fence);
//   * the closing fence is a line indented by at most 3 spaces holding at
//     least as many of the same character and nothing else but spaces/tabs;
//   * a fence that is never closed runs to the end of the text (for model
//     output this means the output was cut off);
//   * lines end at "\n"; a "\r" before it is part of the line ending, so
//     CRLF text behaves like LF text. A lone "\r" does not end a line.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_TEXT_FENCES_H_
#define TOOLGATE_CORE_TEXT_FENCES_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace toolgate {
namespace text {

struct Fence {
  size_t begin = 0;          // Start of the opening fence line.
  size_t content_begin = 0;  // First byte after the opening line.
  size_t content_end = 0;    // Start of the closing line (or end of text).
  size_t end = 0;            // First byte after the closing line.
  char marker = '`';         // '`' or '~'.
  size_t marker_length = 0;  // Number of marker characters, >= 3.
  std::string info;          // Info string, trimmed.
  bool closed = false;

  absl::string_view Content(absl::string_view text) const {
    return text.substr(content_begin, content_end - content_begin);
  }
};

// True when the info string marks JSON for our purposes: empty, or a first
// word equal to "json" in any case ("json", "JSON", "json title=x").
bool IsJsonInfo(absl::string_view info);

// If the line starting at `line_begin` opens a fence, returns that fence,
// scanned to its closing line (or to the end of `text` when unclosed).
// `line_begin` must be a line start (lines.h).
std::optional<Fence> MatchFenceAt(absl::string_view text, size_t line_begin);

// True when the line starting at `line_begin` is an opening fence line.
// Looks at that line only (no scan for the closing fence).
bool IsFenceOpenerLine(absl::string_view text, size_t line_begin);

// All fences of `text`, in order. Text inside one fence is never read as
// another fence opener.
std::vector<Fence> FindFences(absl::string_view text);

// FindFences' answer, looking only at the lines starting at `lines`
// (ascending line starts): equal to it when every line that opens or
// closes a fence in `text` is among them.
std::vector<Fence> FindFencesAmong(absl::string_view text,
                                   const std::vector<size_t>& lines);

// True when the last line of `text` is a proper prefix of a fence-like
// line (see IsFenceLikeLine): one or two backticks or tildes after white
// space and container markers. Output cut off there may have been opening
// a block.
bool EndsWithPartialFenceOpener(absl::string_view text);

// True when the line starting at `line_begin` might open a code fence in
// any context: after any run of spaces, tabs, block quote markers (">")
// and list item markers ("-", "+", "*", "1.", "1)" followed by a space, a
// tab or the line end), it holds "```" or "~~~". A superset of CommonMark's
// fence openers, whatever containers, HTML blocks or indented code the line
// sits in.
bool IsFenceLikeLine(absl::string_view text, size_t line_begin);

// Start of the last fence-like line of `text`, npos when none. Reads from
// the end, so it costs the lines after that one.
size_t LastFenceLikeLine(absl::string_view text);

}  // namespace text
}  // namespace toolgate

#endif  // TOOLGATE_CORE_TEXT_FENCES_H_
