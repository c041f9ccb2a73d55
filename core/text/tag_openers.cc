#include "core/text/tag_openers.h"

#include "absl/strings/ascii.h"

namespace toolgate {
namespace text {
namespace {

bool StartsTagToken(char c) {
  return absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '!' ||
         c == '/' || c == '?';
}

}  // namespace

size_t FindTagOpener(absl::string_view text, size_t from) {
  for (size_t i = text.find('<', from); i != absl::string_view::npos;
       i = text.find('<', i + 1)) {
    if (i + 1 < text.size() && StartsTagToken(text[i + 1])) return i;
  }
  return absl::string_view::npos;
}

size_t CountTagOpeners(absl::string_view text) {
  size_t n = 0;
  for (size_t i = FindTagOpener(text); i != absl::string_view::npos;
       i = FindTagOpener(text, i + 1)) {
    ++n;
  }
  return n;
}

}  // namespace text
}  // namespace toolgate
