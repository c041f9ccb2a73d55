#include "core/util/truncate.h"

#include "absl/strings/str_cat.h"

namespace toolgate {

std::string TruncateText(absl::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t cut = max_bytes;
  // Back off continuation bytes so that a multi-byte sequence stays whole.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return absl::StrCat(text.substr(0, cut), kTruncationMark);
}

}  // namespace toolgate
