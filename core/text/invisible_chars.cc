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

// Made a space: non-ASCII spaces and U+2800 BRAILLE PATTERN BLANK.
constexpr Range kSpaces[] = {
    {0x00A0, 0x00A0}, {0x1680, 0x1680}, {0x2000, 0x200A}, {0x202F, 0x202F},
    {0x205F, 0x205F}, {0x2800, 0x2800}, {0x3000, 0x3000},
};

// Made "\n": VT, FF, CR, NEL, LINE and PARAGRAPH SEPARATOR.
constexpr Range kNewlines[] = {
    {0x000B, 0x000D}, {0x0085, 0x0085}, {0x2028, 0x2029}};

template <size_t N>
bool In(const Range (&ranges)[N], char32_t c) {
  for (const Range& r : ranges) {
    if (c >= r.first && c <= r.last) return true;
  }
  return false;
}

Action Classify(char32_t c) {
  if ((c >= 0x20 && c < 0x7F) || c == '\t' || c == '\n') return Action::kKeep;
  if (In(kNewlines, c)) return Action::kNewline;
  if (In(kSpaces, c)) return Action::kSpace;
  const Range* it =
      std::upper_bound(std::begin(kDropped), std::end(kDropped), c,
                       [](char32_t v, const Range& r) { return v < r.first; });
  if (it != std::begin(kDropped) && c <= (it - 1)->last) return Action::kDrop;
  return Action::kKeep;
}

// Where a character Classify does not keep may start, derived from the
// ranges above: per byte, a bitset over the low six bits of the byte after
// it. An ASCII byte that acts (a control) has every bit; a lead byte the
// second bytes of its acting characters; any other byte none. Text in most
// scripts (accented Latin, Cyrillic, CJK, kana, Hangul, and most
// punctuation) is passed over without being decoded.
struct ActTable {
  uint64_t next[256] = {};
  constexpr void Mark(char32_t c) {
    if (c < 0x80) {
      next[c] = ~uint64_t{0};
      return;
    }
    const int lead = c < 0x800     ? 0xC0 | (c >> 6)
                     : c < 0x10000 ? 0xE0 | (c >> 12)
                                   : 0xF0 | (c >> 18);
    const int shift = c < 0x800 ? 0 : c < 0x10000 ? 6 : 12;
    next[lead] |= uint64_t{1} << ((c >> shift) & 0x3F);
  }
  constexpr ActTable() {
    for (const Range& r : kDropped) {
      for (char32_t c = r.first; c <= r.last; ++c) Mark(c);
    }
    for (const Range& r : kSpaces) {
      for (char32_t c = r.first; c <= r.last; ++c) Mark(c);
    }
    for (const Range& r : kNewlines) {
      for (char32_t c = r.first; c <= r.last; ++c) Mark(c);
    }
  }
  // Whether p[i] (i < n) may start a character that is not kept.
  bool MayAct(const unsigned char* p, size_t i, size_t n) const {
    const uint64_t bits = next[p[i]];
    if (bits == 0) return false;
    if (bits == ~uint64_t{0} || i + 1 == n) return true;
    return ((bits >> (p[i + 1] & 0x3F)) & 1) != 0;
  }
};
constexpr ActTable kActs;

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

// The first position at or after `i` whose byte may start a character
// that is not kept (kActs), or s.size(): the fast path past printable
// ASCII (a word at a time) and past the bytes of kept characters.
size_t SkipKept(absl::string_view s, size_t i) {
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
    // Tab, LF and the bytes of most non-ASCII characters stop the word
    // test: step over them a byte at a time, up to the next word.
    const size_t stop = std::min(s.size(), i + 2 * sizeof(uint64_t));
    const auto* bytes = reinterpret_cast<const unsigned char*>(s.data());
    while (i < stop && !kActs.MayAct(bytes, i, s.size())) ++i;
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
  for (size_t i = SkipKept(source, 0); i < source.size();
       i = SkipKept(source, i)) {
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
