#include "core/text/invisible_chars.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace toolgate {
namespace text {
namespace {

enum class Action { kKeep, kDrop, kSpace, kNewline };

struct Range {
  char32_t first;
  char32_t last;
};

// Default_Ignorable_Code_Point, general category Cf and Cc (Unicode 15.1),
// less tab, LF and the line breaks that become "\n". Sorted.
constexpr Range kDropped[] = {
    {0x0000, 0x0008},   {0x000E, 0x001F},   {0x007F, 0x0084},
    {0x0086, 0x009F},   {0x00AD, 0x00AD},   {0x034F, 0x034F},
    {0x0600, 0x0605},   {0x061C, 0x061C},   {0x06DD, 0x06DD},
    {0x070F, 0x070F},   {0x0890, 0x0891},   {0x08E2, 0x08E2},
    {0x115F, 0x1160},   {0x17B4, 0x17B5},   {0x180B, 0x180F},
    {0x200B, 0x200F},   {0x202A, 0x202E},   {0x2060, 0x206F},
    {0x3164, 0x3164},   {0xFE00, 0xFE0F},   {0xFEFF, 0xFEFF},
    {0xFFA0, 0xFFA0},   {0xFFF0, 0xFFFB},   {0x110BD, 0x110BD},
    {0x110CD, 0x110CD}, {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3},
    {0x1D173, 0x1D17A}, {0xE0000, 0xE0FFF},
};

Action Classify(char32_t c) {
  if (c == '\t' || c == '\n') return Action::kKeep;
  if (c == '\r' || c == 0x0B || c == 0x0C || c == 0x85 || c == 0x2028 ||
      c == 0x2029) {
    return Action::kNewline;
  }
  if (c >= 0x20 && c < 0x7F) return Action::kKeep;
  if (c == 0x00A0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
      c == 0x202F || c == 0x205F || c == 0x3000 || c == 0x2800) {
    return Action::kSpace;
  }
  const Range* it =
      std::upper_bound(std::begin(kDropped), std::end(kDropped), c,
                       [](char32_t v, const Range& r) { return v < r.first; });
  if (it != std::begin(kDropped) && c <= (it - 1)->last) return Action::kDrop;
  return Action::kKeep;
}

constexpr uint64_t kOnes = 0x0101010101010101ull;
constexpr uint64_t kHighBits = 0x8080808080808080ull;

// High bit set in each byte of `w` that is not printable ASCII (0x20-0x7E),
// and maybe in bytes after it. A byte sets its high bit in `w + 1` when it
// is 0x7F or more, and in `(w - 0x20) & ~w` when it is below 0x20; carries
// and borrows cross into the next byte only from a byte that is itself
// flagged, so the test is exact for "any byte".
uint64_t NotPrintable(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof(w));
  return (w | (w + kOnes) | ((w - kOnes * 0x20) & ~w)) & kHighBits;
}

// The first position at or after `i` whose byte is not printable ASCII,
// tab or LF, or s.size(): the fast path past plain text.
size_t SkipPlain(absl::string_view s, size_t i) {
  for (;;) {
    // Two words at a time, then one.
    while (i + 2 * sizeof(uint64_t) <= s.size() &&
           (NotPrintable(s.data() + i) |
            NotPrintable(s.data() + i + sizeof(uint64_t))) == 0) {
      i += 2 * sizeof(uint64_t);
    }
    while (i + sizeof(uint64_t) <= s.size() &&
           NotPrintable(s.data() + i) == 0) {
      i += sizeof(uint64_t);
    }
    // Tab and LF stop the word test: step over them a byte at a time, up
    // to the next word.
    const size_t stop = std::min(s.size(), i + sizeof(uint64_t));
    while (i < stop && IsPlainByte(static_cast<unsigned char>(s[i]))) ++i;
    if (i < stop || i == s.size()) return i;
  }
}

}  // namespace

char32_t DecodeUtf8At(absl::string_view s, size_t i, size_t* len) {
  const unsigned char b = static_cast<unsigned char>(s[i]);
  size_t n = b < 0x80           ? 1
             : (b >> 5) == 0x6  ? 2
             : (b >> 4) == 0xE  ? 3
             : (b >> 3) == 0x1E ? 4
                                : 0;
  if (n == 0 || i + n > s.size()) {
    *len = 1;
    return 0xFFFD;  // Kept: only real code points are classified.
  }
  char32_t c = n == 1 ? b : b & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    const unsigned char cont = static_cast<unsigned char>(s[i + k]);
    if ((cont & 0xC0) != 0x80) {
      *len = 1;
      return 0xFFFD;
    }
    c = (c << 6) | (cont & 0x3F);
  }
  *len = n;
  return c;
}

size_t ScanText::SourceOffset(size_t i) const {
  auto it = std::upper_bound(
      shifts.begin(), shifts.end(), i,
      [](size_t v, const std::pair<size_t, size_t>& s) { return v < s.first; });
  return it == shifts.begin() ? i : i + (it - 1)->second;
}

bool NormalizeForScan(absl::string_view source, ScanText* out) {
  bool changed = false;
  std::string text;
  std::vector<std::pair<size_t, size_t>> shifts;
  size_t ahead = 0;   // Bytes the source is ahead of `text`.
  size_t copied = 0;  // source[0, copied) is in `text` already.
  for (size_t i = SkipPlain(source, 0); i < source.size();
       i = SkipPlain(source, i)) {
    size_t len;
    const Action action = Classify(DecodeUtf8At(source, i, &len));
    if (action == Action::kKeep) {
      i += len;
      continue;
    }
    if (!changed) {
      changed = true;
      text.reserve(source.size());
    }
    text.append(source.data() + copied, i - copied);
    size_t written = 0;
    if (action != Action::kDrop) {
      text.push_back(action == Action::kSpace ? ' ' : '\n');
      written = 1;
    }
    if (len != written) {
      ahead += len - written;
      shifts.emplace_back(text.size(), ahead);
    }
    i += len;
    copied = i;
  }
  if (!changed) return false;
  text.append(source.data() + copied, source.size() - copied);
  out->text = std::move(text);
  out->shifts = std::move(shifts);
  return true;
}

}  // namespace text
}  // namespace toolgate
