#include "core/text/lines.h"

namespace toolgate {
namespace text {

size_t LineEnd(absl::string_view text, size_t pos) {
  const size_t end = text.find_first_of("\r\n", pos);
  return end == absl::string_view::npos ? text.size() : end;
}

size_t NextLine(absl::string_view text, size_t pos) {
  size_t end = LineEnd(text, pos);
  if (end < text.size() && text[end] == '\r') ++end;
  if (end < text.size() && text[end] == '\n') ++end;
  return end;
}

size_t LineStart(absl::string_view text, size_t pos) {
  if (pos > text.size()) pos = text.size();
  // The "\n" of a "\r\n" ends the same line as its "\r".
  if (pos > 0 && pos < text.size() && text[pos] == '\n' &&
      text[pos - 1] == '\r') {
    --pos;
  }
  if (pos == 0) return 0;
  const size_t prev = text.find_last_of("\r\n", pos - 1);
  return prev == absl::string_view::npos ? 0 : prev + 1;
}

bool IsLineStart(absl::string_view text, size_t pos) {
  if (pos == 0) return true;
  if (pos > text.size()) return false;
  const char before = text[pos - 1];
  if (before == '\n') return true;
  return before == '\r' && (pos == text.size() || text[pos] != '\n');
}

absl::string_view LineText(absl::string_view text, size_t begin) {
  return text.substr(begin, LineEnd(text, begin) - begin);
}

}  // namespace text
}  // namespace toolgate
