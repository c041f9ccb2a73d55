#include "core/text/lines.h"

#include <cstring>

namespace toolgate {
namespace text {

// memchr for the "\n", then for a "\r" only before it: linear in the line,
// whatever the text holds after it.
size_t LineEnd(absl::string_view text, size_t pos) {
  if (pos >= text.size()) return text.size();
  const char* begin = text.data() + pos;
  const size_t rest = text.size() - pos;
  const void* lf = std::memchr(begin, '\n', rest);
  const size_t limit =
      lf == nullptr ? rest : static_cast<const char*>(lf) - begin;
  const void* cr = std::memchr(begin, '\r', limit);
  return pos + (cr == nullptr ? limit : static_cast<const char*>(cr) - begin);
}

size_t LineStart(absl::string_view text, size_t pos) {
  if (pos > text.size()) pos = text.size();
  // The "\n" of a "\r\n" ends the same line as its "\r".
  if (pos > 0 && pos < text.size() && text[pos] == '\n' &&
      text[pos - 1] == '\r') {
    --pos;
  }
  while (pos > 0 && !IsLineEndChar(text[pos - 1])) --pos;
  return pos;
}

}  // namespace text
}  // namespace toolgate
