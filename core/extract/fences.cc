#include "core/extract/fences.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace toolgate {
namespace extract {
namespace {

struct Line {
  absl::string_view text;  // Without the line ending.
  size_t next = 0;         // Start of the following line.
};

Line LineAt(absl::string_view text, size_t begin) {
  size_t nl = text.find('\n', begin);
  Line line;
  if (nl == absl::string_view::npos) {
    line.text = text.substr(begin);
    line.next = text.size();
  } else {
    line.text = text.substr(begin, nl - begin);
    line.next = nl + 1;
  }
  if (!line.text.empty() && line.text.back() == '\r') line.text.remove_suffix(1);
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
  absl::string_view info =
      absl::StripAsciiWhitespace(line.substr(indent + n));
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

}  // namespace

bool IsJsonInfo(absl::string_view info) {
  info = absl::StripAsciiWhitespace(info);
  size_t word_end = 0;
  while (word_end < info.size() && info[word_end] != ' ' &&
         info[word_end] != '\t') {
    ++word_end;
  }
  return word_end == 0 || absl::EqualsIgnoreCase(info.substr(0, word_end),
                                                 "json");
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

bool EndsWithPartialFenceOpener(absl::string_view text) {
  const size_t nl = text.rfind('\n');
  absl::string_view last =
      nl == absl::string_view::npos ? text : text.substr(nl + 1);
  const int indent = FenceIndent(last);
  if (indent < 0 || static_cast<size_t>(indent) >= last.size()) return false;
  const char c = last[indent];
  if (c != '`' && c != '~') return false;
  const size_t n = RunLength(last, indent, c);
  return n < 3 && indent + n == last.size();
}

}  // namespace extract
}  // namespace toolgate
