// Where CommonMark puts fenced code blocks, to check toolgate's reading.
//
// toolgate finds fences with a simple top-level scan (fences.h). A
// renderer, a reviewer or a downstream agent reads the same text as
// CommonMark, where block quotes, list items, HTML blocks (comments
// included), indented code and lazy continuation lines decide whether a
// line opens a fence at all, and where it closes. When the two readings
// differ, the block toolgate would take as "the last one" may not be the
// last one anyone else sees. ParseBlocks follows the block-structure
// phase of CommonMark 0.30 as cmark 0.30.2 implements it (tabs, the UTF-8
// BOM, "\r" line endings, all seven HTML block kinds, list item padding,
// lazy continuation) far enough to say where each fenced code block opens
// and closes. Inline structure is not needed and not parsed.
//
// What it cannot settle it reports instead of guessing: a paragraph that
// may consist only of link reference definitions changes the structure
// after it (a setext underline, a list item's blank line), and deciding
// that needs the inline parser; nesting deeper than kMaxNesting is not
// followed. From such a line on nothing is trusted (trusted_until), so
// a check against this parse fails closed.
//
// A text whose fence lines all start at column 0, with no HTML, deep
// nesting or link reference definitions, is answered from its fence lines
// alone (commonmark_top_level.cc says why that is the same answer).
//
// Linear in the text size for a bounded nesting depth. Thread-safety: pure
// functions.
#ifndef TOOLGATE_CORE_TEXT_COMMONMARK_H_
#define TOOLGATE_CORE_TEXT_COMMONMARK_H_

#include <cstddef>
#include <vector>

#include "absl/strings/string_view.h"

namespace toolgate {
namespace text {

inline constexpr size_t kMaxNesting = 64;  // Open containers, at most.

// A fenced code block as CommonMark reads it. Offsets are into the text
// passed to ParseBlocks.
struct CodeFence {
  size_t opener_line = 0;  // Start of the line holding the opening fence.
  size_t end = 0;          // First byte after its last line (past the closing
                           // fence line when closed; else where it was ended).
  bool closed = false;     // Ended by its own closing fence.
  bool in_block_quote = false;  // Inside a block quote at some depth.
  bool in_list_item = false;    // Inside a list item at some depth.
};

struct BlockStructure {
  std::vector<CodeFence> fences;  // In order of their opening lines.
  // Start of the first line whose reading depends on something not
  // modelled (see above); text.size() when everything was followed.
  size_t trusted_until = 0;
};

BlockStructure ParseBlocks(absl::string_view text);

// True when CommonMark reads the fence toolgate found at [begin, end)
// (begin: its opening line; end: past its closing line) as the same block:
// a fenced code block opening on that line, closed by its own closing
// fence on the same last line, not inside a block quote (whose markers
// toolgate would have read as content), and wholly before trusted_until.
// Inside list items the two readings differ only in leading white space
// of the content lines, which JSON ignores.
bool IsCommonMarkFence(const BlockStructure& blocks, size_t begin, size_t end);

}  // namespace text
}  // namespace toolgate

#endif  // TOOLGATE_CORE_TEXT_COMMONMARK_H_
