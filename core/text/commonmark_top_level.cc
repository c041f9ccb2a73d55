// When CommonMark's fenced code blocks are those of the top-level scan.
//
// ParseBlocks reports, for each fenced code block, its opening line, its
// end, whether its own fence closed it and whether it sits in a block
// quote, and the point after which nothing is trusted. Suppose that in the
// text
//   (a) every run of three or more backticks or tildes starts a line,
//   (b) no line holds "<" as its first byte after its indentation and
//       container markers, and the text starts with no byte order mark,
//   (c) no line holding a container marker has indentation and markers
//       spanning 48 columns or more (lines of white space only open
//       nothing, however long), and
//   (d) "]:" occurs nowhere.
// By (a), every line that can open or close a fence, in any container,
// has its fence at column 0: no fence sits inside a block quote or a list
// item, and no indented line closes one. A line with a fence at column 0
// cannot continue a block quote, a list item or indented code (it has no
// marker or indentation, and a fence interrupts a paragraph, so it is not
// a lazy continuation line) and by (b) no HTML block is ever open (every
// HTML block kind starts with "<"; cmark drops a leading BOM, which would
// hide one). So such a line opens a fence at the top level exactly when
// no fence is open, and closes the open one exactly by the top-level
// rules: the fences are FindFences', none in a block quote; and the lines
// that open or close one are the lines that start with a run of three or
// more backticks or tildes, all FindFencesAmong needs to look at. Nothing is
// distrusted: by (d) no paragraph can be link reference definitions only
// (they need "]:"), and by (c) no line holds the 62 container markers or
// indentation levels the parser stops at (each open container takes at
// least one column of the line that continues or opens it).
// commonmark_test holds the two answers equal on random texts, and
// tests/commonmark holds ParseBlocks to cmark itself.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "core/text/commonmark.h"
#include "core/text/commonmark_parser.h"
#include "core/text/fences.h"
#include "core/text/lines.h"

namespace toolgate {
namespace text {
namespace internal {
namespace {

constexpr size_t kNpos = absl::string_view::npos;
constexpr int kLeadColumnsLimit = 48;
constexpr uint64_t kEightSpaces = 0x2020202020202020ull;

// The bytes of block quote and list item markers.
bool IsMarkerByte(char c) {
  return c == '>' || c == '*' || c == '+' || c == '-' || c == '.' || c == ')' ||
         (c >= '0' && c <= '9');
}

bool EightSpacesAt(const char* p) {
  uint64_t word;
  std::memcpy(&word, p, 8);
  return word == kEightSpaces;
}

// (a) for `c`: appends the line start of each run of three or more `c`;
// false when one does not start a line.
bool RunsStartLines(absl::string_view text, char c,
                    std::vector<size_t>* lines) {
  const char* const data = text.data();
  const size_t size = text.size();
  for (size_t at = 0; at + 3 <= size;) {
    const void* found = std::memchr(data + at, c, size - at);
    if (found == nullptr) break;
    const size_t start = static_cast<const char*>(found) - data;
    size_t end = start + 1;
    while (end < size && data[end] == c) ++end;
    if (end - start >= 3) {
      if (!IsLineStart(text, start)) return false;
      lines->push_back(start);
    }
    at = end;
  }
  return true;
}

// (d): "]:" nowhere.
bool HasReferenceColon(absl::string_view text) {
  const char* const data = text.data();
  const size_t size = text.size();
  for (size_t at = 0; at + 1 < size;) {
    const void* found = std::memchr(data + at, ']', size - 1 - at);
    if (found == nullptr) return false;
    at = static_cast<const char*>(found) - data + 1;
    if (data[at] == ':') return true;
  }
  return false;
}

// (b) and (c) for the line starting at `begin`. A line of white space only
// opens nothing (reasoning, blanked to spaces, makes long ones).
bool LineLeadIsPlain(absl::string_view text, size_t begin) {
  size_t columns = 0;
  bool markers = false;
  size_t i = begin;
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ') {
      // Eight spaces at a time: blanked reasoning makes long runs.
      const size_t run = i;
      while (i + 8 <= text.size() && EightSpacesAt(text.data() + i)) i += 8;
      while (i < text.size() && text[i] == ' ') ++i;
      columns += i - run;
      continue;
    }
    if (c == '\t') {
      columns += kTabStop;
    } else if (IsMarkerByte(c)) {
      ++columns;
      markers = true;
    } else {
      break;
    }
    ++i;
  }
  const size_t limit = kLeadColumnsLimit;
  if (i == text.size() || IsLineEndChar(text[i])) {
    return !markers || columns < limit;
  }
  return columns < limit && text[i] != '<';
}

bool LinesLeadPlainly(absl::string_view text) {
  // Without a "\r" anywhere, a line ends at the next "\n".
  const bool has_cr = text.find('\r') != kNpos;
  const char* const data = text.data();
  for (size_t begin = 0; begin < text.size();) {
    if (!LineLeadIsPlain(text, begin)) return false;
    size_t end;
    if (has_cr) {
      end = LineEnd(text, begin);
    } else {
      const void* lf = std::memchr(data + begin, '\n', text.size() - begin);
      end = lf == nullptr
                ? text.size()
                : static_cast<size_t>(static_cast<const char*>(lf) - data);
    }
    begin = SkipLineEnding(text, end);
  }
  return true;
}

}  // namespace

std::optional<BlockStructure> TopLevelBlocks(absl::string_view text) {
  std::vector<size_t> backtick_lines;
  std::vector<size_t> tilde_lines;
  if (absl::StartsWith(text, "\xEF\xBB\xBF") || HasReferenceColon(text) ||
      !RunsStartLines(text, '`', &backtick_lines) ||
      !RunsStartLines(text, '~', &tilde_lines) || !LinesLeadPlainly(text)) {
    return std::nullopt;
  }
  std::vector<size_t> fence_lines;
  fence_lines.reserve(backtick_lines.size() + tilde_lines.size());
  std::merge(backtick_lines.begin(), backtick_lines.end(), tilde_lines.begin(),
             tilde_lines.end(), std::back_inserter(fence_lines));
  BlockStructure blocks;
  blocks.trusted_until = text.size();
  for (const Fence& fence : FindFencesAmong(text, fence_lines)) {
    CodeFence code;
    code.opener_line = fence.begin;
    code.end = fence.end;
    code.closed = fence.closed;
    blocks.fences.push_back(code);
  }
  return blocks;
}

}  // namespace internal
}  // namespace text
}  // namespace toolgate
