#include "core/json/utf8.h"

namespace toolgate {
namespace {

// Length of the well-formed sequence starting at text[i], 0 if ill-formed.
size_t Utf8SequenceLength(absl::string_view text, size_t i) {
  const auto byte = [&](size_t k) {
    return static_cast<unsigned char>(text[k]);
  };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) return 1;
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF;  // Allowed range of the second byte.
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    if (b0 == 0xE0) lo = 0xA0;  // Overlong.
    if (b0 == 0xED) hi = 0x9F;  // UTF-16 surrogates.
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    if (b0 == 0xF0) lo = 0x90;  // Overlong.
    if (b0 == 0xF4) hi = 0x8F;  // Above U+10FFFF.
  } else {
    return 0;  // Continuation byte, C0/C1 overlong lead, or F5..FF.
  }
  if (i + len > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  return len;
}

}  // namespace

size_t FindInvalidUtf8(absl::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const size_t len = Utf8SequenceLength(text, i);
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
    const size_t len = Utf8SequenceLength(text, i);
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
