// argument_leak: Rabin-Karp over 32-byte windows.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/policy/secret_checks.h"
#include "core/text/invisible_chars.h"

namespace toolgate::policy {
namespace {

using ::toolgate::text::NormalizeForScan;
using ::toolgate::text::ScanText;

constexpr size_t kWindow = LeakDetector::kLeakWindowBytes;
// Polynomial hash modulo 2^64 with an odd base; mixed before use, since
// its low bits depend only on the bytes' low bits.
constexpr uint64_t kBase = 0x100000001B3ull;

constexpr uint64_t PowBase(size_t n) {
  uint64_t p = 1;
  for (size_t i = 0; i < n; ++i) p *= kBase;
  return p;
}
// Weight of the byte leaving the window.
constexpr uint64_t kOutWeight = PowBase(kWindow - 1);

uint64_t HashWindow(const char* p) {
  uint64_t h = 0;
  for (size_t i = 0; i < kWindow; ++i) {
    h = h * kBase + static_cast<unsigned char>(p[i]);
  }
  return h;
}

uint64_t Roll(uint64_t h, char out, char in) {
  return (h - kOutWeight * static_cast<unsigned char>(out)) * kBase +
         static_cast<unsigned char>(in);
}

// splitmix64's finalizer.
uint64_t Mix(uint64_t h) {
  h ^= h >> 30;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 27;
  h *= 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

}  // namespace

LeakDetector::LeakDetector(const std::vector<std::string>& protected_texts,
                           size_t max_protected_bytes) {
  size_t total = 0;
  for (const std::string& t : protected_texts) total += t.size();
  if (total > std::min(max_protected_bytes, kMaxProtectedBytes)) {
    over_limit_ = true;
    return;
  }
  data_.reserve(total);
  for (size_t i = 0; i < protected_texts.size(); ++i) {
    const std::string& t = protected_texts[i];
    Append(t, static_cast<uint32_t>(i));
    // The normal form is never longer than the text: data_ stays within
    // twice kMaxProtectedBytes, well inside a uint32_t offset.
    ScanText visible;
    if (NormalizeForScan(t, &visible)) {
      Append(visible.text, static_cast<uint32_t>(i));
    }
  }
  size_t windows = 0;
  size_t begin = 0;
  for (uint32_t end : ends_) {
    if (end - begin >= kWindow) windows += end - begin - kWindow + 1;
    begin = end;
  }
  if (windows == 0) return;
  size_t capacity = 16;
  while (capacity < 2 * windows) capacity *= 2;
  slots_.assign(capacity, Slot{0, kEmpty});
  shift_ = 64 - __builtin_ctzll(capacity);
  begin = 0;
  for (uint32_t end : ends_) {
    if (end - begin >= kWindow) {
      uint64_t h = HashWindow(data_.data() + begin);
      for (size_t i = begin;; ++i) {
        Insert(h, static_cast<uint32_t>(i));
        if (i + kWindow == end) break;
        h = Roll(h, data_[i], data_[i + kWindow]);
      }
    }
    begin = end;
  }
}

void LeakDetector::Append(absl::string_view text, uint32_t index) {
  data_.append(text.data(), text.size());
  ends_.push_back(static_cast<uint32_t>(data_.size()));
  texts_.push_back(index);
}

void LeakDetector::Insert(uint64_t hash, uint32_t offset) {
  const uint64_t m = Mix(hash);
  const uint32_t fp = static_cast<uint32_t>(m);
  const size_t mask = slots_.size() - 1;
  for (size_t i = m >> shift_;; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.offset == kEmpty) {
      s = Slot{fp, offset};
      ++window_count_;
      return;
    }
    // Repeated windows (runs of one byte, repeated paragraphs) are kept
    // once, which bounds probe chains to distinct contents.
    if (s.fingerprint == fp &&
        std::memcmp(data_.data() + s.offset, data_.data() + offset, kWindow) ==
            0) {
      return;
    }
  }
}

uint32_t LeakDetector::Find(uint64_t hash, const char* window) const {
  const uint64_t m = Mix(hash);
  const uint32_t fp = static_cast<uint32_t>(m);
  const size_t mask = slots_.size() - 1;
  for (size_t i = m >> shift_;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.offset == kEmpty) return kEmpty;
    if (s.fingerprint == fp &&
        std::memcmp(data_.data() + s.offset, window, kWindow) == 0) {
      return s.offset;
    }
  }
}

size_t LeakDetector::TextIndex(uint32_t offset) const {
  return texts_[std::upper_bound(ends_.begin(), ends_.end(), offset) -
                ends_.begin()];
}

uint32_t LeakDetector::FirstWindow(absl::string_view text, size_t* at) const {
  if (text.size() < kWindow) return kEmpty;
  uint64_t h = HashWindow(text.data());
  for (size_t i = 0;; ++i) {
    const uint32_t found = Find(h, text.data() + i);
    if (found != kEmpty) {
      *at = i;
      return found;
    }
    if (i + kWindow == text.size()) return kEmpty;
    h = Roll(h, text[i], text[i + kWindow]);
  }
}

std::optional<ArgumentViolation> LeakDetector::CheckWindows(
    absl::string_view text, ArgumentPart part) const {
  if (over_limit_) {
    return MakeViolation(
        "argument_leak",
        "the run's protected texts are too large to check arguments against; "
        "string arguments and member names of 32 bytes or more are refused");
  }
  if (slots_.empty()) return std::nullopt;
  size_t at = 0;
  uint32_t found = FirstWindow(text, &at);
  // As FindSecret: again without invisible characters, if it holds any.
  ScanText visible;
  const bool hidden = found == kEmpty && NormalizeForScan(text, &visible);
  if (hidden) {
    found = FirstWindow(visible.text, &at);
    at = visible.SourceOffset(at);
  }
  if (found == kEmpty) return std::nullopt;
  return MakeViolation(
      "argument_leak",
      absl::StrCat(ArgumentPartName(part), " repeats ", kWindow,
                   " or more consecutive bytes of protected text #",
                   TextIndex(found), " (from byte ", at,
                   hidden ? ", split by invisible characters" : "",
                   "); do not copy the system prompt or secrets into tool "
                   "arguments, summarise instead"));
}

size_t LeakDetector::MemoryBytes() const {
  return data_.capacity() +
         (ends_.capacity() + texts_.capacity()) * sizeof(uint32_t) +
         slots_.capacity() * sizeof(Slot);
}

}  // namespace toolgate::policy
