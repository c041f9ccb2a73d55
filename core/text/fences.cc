#include "core/text/fences.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "core/text/lines.h"

namespace toolgate {
namespace text {
namespace {

struct Line {
  absl::string_view text;  // Without the line ending.
  size_t next = 0;         // Start of the following line.
};

Line LineAt(absl::string_view text, size_t begin) {
  const size_t end = LineEnd(text, begin);
  Line line;
  line.text = text.substr(begin, end - begin);
  line.next = SkipLineEnding(text, end);
  return line;
}

// Number of leading spaces if at most 3 (a tab expands to column 4, which
// is too deep for a fence), or -1.
int FenceIndent(absl::string_view line) {
  int n = 0;
  while (n < static_cast<int>(line.size()) && line[n] == ' ') ++n;
  if (n > 3) return -1;
  if (n < static_cast<int>(line.size()) && line[n] == '\t') return -1;
  return n;
}

size_t RunLength(absl::string_view s, size_t pos, char c) {
  size_t n = 0;
  while (pos + n < s.size() && s[pos + n] == c) ++n;
  return n;
}

bool ParseOpener(absl::string_view line, Fence* fence) {
  const int indent = FenceIndent(line);
  if (indent < 0 || static_cast<size_t>(indent) >= line.size()) return false;
  const char c = line[indent];
  if (c != '`' && c != '~') return false;
  const size_t n = RunLength(line, indent, c);
  if (n < 3) return false;
  absl::string_view info = absl::StripAsciiWhitespace(line.substr(indent + n));
  if (c == '`' && absl::StrContains(info, '`')) return false;
  fence->marker = c;
  fence->marker_length = n;
  fence->info = std::string(info);
  return true;
}

bool IsCloser(absl::string_view line, const Fence& fence) {
  const int indent = FenceIndent(line);
  if (indent < 0) return false;
  const size_t n = RunLength(line, indent, fence.marker);
  if (n < fence.marker_length) return false;
  for (size_t i = indent + n; i < line.size(); ++i) {
    if (line[i] != ' ' && line[i] != '\t') return false;
  }
  return true;
}

// Skips white space and container markers (block quote ">", list items
// "-", "+", "*", "1.", "1)" followed by white space or the line end), as
// many as there are: what CommonMark may strip before a fence opener.
size_t SkipContainerMarkers(absl::string_view line) {
  size_t i = 0;
  while (true) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size()) return i;
    if (line[i] == '>') {
      ++i;
      continue;
    }
    size_t marker_end = i;
    if (line[i] == '-' || line[i] == '+' || line[i] == '*') {
      marker_end = i + 1;
    } else {
      while (
          marker_end < line.size() &&
          absl::ascii_isdigit(static_cast<unsigned char>(line[marker_end]))) {
        ++marker_end;
      }
      if (marker_end == i || marker_end >= line.size() ||
          (line[marker_end] != '.' && line[marker_end] != ')')) {
        return i;
      }
      ++marker_end;
    }
    if (marker_end < line.size() && line[marker_end] != ' ' &&
        line[marker_end] != '\t') {
      return i;
    }
    i = marker_end;
  }
}

}  // namespace

bool IsJsonInfo(absl::string_view info) {
  info = absl::StripAsciiWhitespace(info);
  size_t word_end = 0;
  while (word_end < info.size() && info[word_end] != ' ' &&
         info[word_end] != '\t') {
    ++word_end;
  }
  return word_end == 0 ||
         absl::EqualsIgnoreCase(info.substr(0, word_end), "json");
}

std::optional<Fence> MatchFenceAt(absl::string_view text, size_t line_begin) {
  Fence fence;
  const Line opener = LineAt(text, line_begin);
  if (!ParseOpener(opener.text, &fence)) return std::nullopt;
  fence.begin = line_begin;
  fence.content_begin = opener.next;
  size_t pos = opener.next;
  while (pos < text.size()) {
    const Line line = LineAt(text, pos);
    if (IsCloser(line.text, fence)) {
      fence.content_end = pos;
      fence.end = line.next;
      fence.closed = true;
      return fence;
    }
    pos = line.next;
  }
  fence.content_end = text.size();
  fence.end = text.size();
  return fence;
}

bool IsFenceOpenerLine(absl::string_view text, size_t line_begin) {
  // Most lines are rejected by their first bytes, before the line end is
  // searched for.
  size_t i = line_begin;
  while (i < text.size() && i - line_begin < 4 && text[i] == ' ') ++i;
  if (i >= text.size() || (text[i] != '`' && text[i] != '~')) return false;
  Fence unused;
  return ParseOpener(LineAt(text, line_begin).text, &unused);
}

std::vector<Fence> FindFences(absl::string_view text) {
  std::vector<Fence> fences;
  size_t pos = 0;
  while (pos < text.size()) {
    if (std::optional<Fence> fence = MatchFenceAt(text, pos)) {
      pos = fence->end;
      fences.push_back(std::move(*fence));
      continue;
    }
    pos = LineAt(text, pos).next;
  }
  return fences;
}

std::vector<Fence> FindFencesAmong(absl::string_view text,
                                   const std::vector<size_t>& lines) {
  std::vector<Fence> fences;
  Fence open;
  bool is_open = false;
  for (const size_t begin : lines) {
    const Line line = LineAt(text, begin);
    if (!is_open) {
      is_open = ParseOpener(line.text, &open);
      open.begin = begin;
      open.content_begin = line.next;
    } else if (IsCloser(line.text, open)) {
      open.content_end = begin;
      open.end = line.next;
      open.closed = true;
      fences.push_back(std::move(open));
      open = Fence();
      is_open = false;
    }
  }
  if (is_open) {
    open.content_end = text.size();
    open.end = text.size();
    fences.push_back(std::move(open));
  }
  return fences;
}

bool EndsWithPartialFenceOpener(absl::string_view text) {
  const absl::string_view last = text.substr(LineStart(text, text.size()));
  const size_t i = SkipContainerMarkers(last);
  if (i >= last.size()) return false;
  const char c = last[i];
  if (c != '`' && c != '~') return false;
  const size_t n = RunLength(last, i, c);
  return n < 3 && i + n == last.size();
}

bool IsFenceLikeLine(absl::string_view text, size_t line_begin) {
  const absl::string_view line = LineText(text, line_begin);
  const absl::string_view rest = line.substr(SkipContainerMarkers(line), 3);
  return rest == "```" || rest == "~~~";
}

// From the end backwards: the answer is usually among an envelope's last
// lines, and a forward pass over the whole text was 8% of ExtractVerdict.
size_t LastFenceLikeLine(absl::string_view text) {
  size_t end = text.size();  // End of the current line, before its ending.
  while (true) {
    const size_t start = LineStart(text, end);
    const absl::string_view rest = text.substr(start, end - start);
    const absl::string_view marker = rest.substr(SkipContainerMarkers(rest), 3);
    if (marker == "```" || marker == "~~~") return start;
    if (start == 0) return absl::string_view::npos;
    end = start - 1;  // The previous line's ending: "\r\n" is one.
    if (end > 0 && text[end] == '\n' && text[end - 1] == '\r') --end;
  }
}

}  // namespace text
}  // namespace toolgate
