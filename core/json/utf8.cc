#include "core/json/utf8.h"

namespace toolgate {
namespace {

// Length of the well-formed sequence starting at text[i], 0 if ill-formed.
size_t SequenceLengthAt(absl::string_view text, size_t i) {
  if (static_cast<unsigned char>(text[i]) < 0x80) return 1;
  return ::toolgate::Utf8SequenceLength(text.data() + i,
                                        text.data() + text.size());
}

}  // namespace

size_t FindInvalidUtf8(absl::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const size_t len = SequenceLengthAt(text, i);
    if (len == 0) return i;
    i += len;
  }
  return absl::string_view::npos;
}

std::string ToValidUtf8(absl::string_view text) {
  if (FindInvalidUtf8(text) == absl::string_view::npos) {
    return std::string(text);
  }
  std::string out;
  out.reserve(text.size() + 8);
  for (size_t i = 0; i < text.size();) {
    const size_t len = SequenceLengthAt(text, i);
    if (len == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    } else {
      out.append(text.data() + i, len);
      i += len;
    }
  }
  return out;
}

}  // namespace toolgate
