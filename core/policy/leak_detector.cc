// argument_leak: Rabin-Karp over 32-byte windows.
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/policy/secret_checks.h"
#include "core/text/invisible_chars.h"

namespace toolgate::policy {
namespace {

using ::toolgate::text::NormalizeForScan;
using ::toolgate::text::ScanText;

constexpr size_t kWindow = LeakTable::kLeakWindowBytes;
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

// What a table of `texts` holds before it is built: each text, and its
// normal form when it holds invisible characters (forms), their bytes and
// windows (duplicates included: they size the table).
struct Plan {
  std::vector<ScanText> normal;  // Per text; empty text when none.
  std::vector<bool> has_normal;
  size_t original_bytes = 0;
  size_t bytes = 0;
  size_t forms = 0;
  size_t windows = 0;
};

void Count(size_t size, Plan* plan) {
  plan->bytes += size;
  ++plan->forms;
  if (size >= kWindow) plan->windows += size - kWindow + 1;
}

Plan PlanOf(const std::vector<std::string>& texts) {
  Plan plan;
  plan.normal.resize(texts.size());
  plan.has_normal.resize(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    plan.original_bytes += texts[i].size();
    Count(texts[i].size(), &plan);
    plan.has_normal[i] = NormalizeForScan(texts[i], &plan.normal[i]);
    if (plan.has_normal[i]) Count(plan.normal[i].text.size(), &plan);
  }
  return plan;
}

size_t SlotCount(size_t windows) {
  if (windows == 0) return 0;
  size_t capacity = 16;
  while (capacity < 2 * windows) capacity *= 2;
  return capacity;
}

}  // namespace

LeakTable::LeakTable(const std::vector<std::string>& protected_texts,
                     size_t max_protected_bytes)
    : text_count_(protected_texts.size()) {
  const Plan plan = PlanOf(protected_texts);
  if (plan.original_bytes > std::min(max_protected_bytes, kMaxProtectedBytes)) {
    over_limit_ = true;
    return;
  }
  // The normal form is never longer than the text: data_ stays within
  // twice kMaxProtectedBytes, well inside a uint32_t offset.
  data_.reserve(plan.bytes);
  ends_.reserve(plan.forms);
  texts_.reserve(plan.forms);
  for (size_t i = 0; i < protected_texts.size(); ++i) {
    Append(protected_texts[i], static_cast<uint32_t>(i));
    if (plan.has_normal[i]) Append(plan.normal[i].text, static_cast<uint32_t>(i));
  }
  const size_t capacity = SlotCount(plan.windows);
  if (capacity == 0) return;
  slots_.assign(capacity, Slot{0, kEmpty});
  shift_ = 64 - __builtin_ctzll(capacity);
  size_t begin = 0;
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

size_t LeakTable::PlannedBytes(const std::vector<std::string>& protected_texts,
                               size_t max_protected_bytes) {
  const Plan plan = PlanOf(protected_texts);
  if (plan.original_bytes > std::min(max_protected_bytes, kMaxProtectedBytes)) {
    return 0;
  }
  return plan.bytes + 2 * plan.forms * sizeof(uint32_t) +
         SlotCount(plan.windows) * sizeof(Slot);
}

bool LeakTable::Holds(const std::vector<std::string>& protected_texts) const {
  if (over_limit_ || protected_texts.size() != text_count_) return false;
  // Each text's first form is the text as given, in order.
  size_t begin = 0;
  size_t next = 0;
  for (size_t f = 0; f < ends_.size(); ++f) {
    if (texts_[f] == next) {
      if (absl::string_view(data_).substr(begin, ends_[f] - begin) !=
          protected_texts[next]) {
        return false;
      }
      ++next;
    }
    begin = ends_[f];
  }
  return next == protected_texts.size();
}

void LeakTable::Append(absl::string_view text, uint32_t index) {
  data_.append(text.data(), text.size());
  ends_.push_back(static_cast<uint32_t>(data_.size()));
  texts_.push_back(index);
}

void LeakTable::Insert(uint64_t hash, uint32_t offset) {
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

uint32_t LeakTable::Find(uint64_t hash, const char* window) const {
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

uint32_t LeakTable::FirstWindow(absl::string_view text, size_t* at) const {
  if (slots_.empty() || text.size() < kWindow) return kEmpty;
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

size_t LeakTable::TextIndex(uint32_t offset) const {
  return texts_[std::upper_bound(ends_.begin(), ends_.end(), offset) -
                ends_.begin()];
}

size_t LeakTable::MemoryBytes() const {
  return data_.capacity() +
         (ends_.capacity() + texts_.capacity()) * sizeof(uint32_t) +
         slots_.capacity() * sizeof(Slot);
}

LeakDetector::LeakDetector(const std::vector<std::string>& protected_texts,
                           size_t max_protected_bytes)
    : table_(std::make_shared<const LeakTable>(protected_texts,
                                               max_protected_bytes)) {}

LeakDetector::LeakDetector(std::shared_ptr<const LeakTable> table,
                           std::vector<uint32_t> text_numbers)
    : table_(std::move(table)), text_numbers_(std::move(text_numbers)) {}

size_t LeakDetector::TextNumber(uint32_t offset) const {
  const size_t i = table_->TextIndex(offset);
  return i < text_numbers_.size() ? text_numbers_[i] : i;
}

std::optional<ArgumentViolation> LeakDetector::CheckWindows(
    absl::string_view text, ArgumentPart part) const {
  if (table_->over_limit()) {
    return MakeViolation(
        "argument_leak",
        "the run's protected texts are too large to check arguments against; "
        "string arguments and member names of 32 bytes or more are refused");
  }
  if (table_->empty()) return std::nullopt;
  size_t at = 0;
  uint32_t found = table_->FirstWindow(text, &at);
  // As FindSecret: again without invisible characters, if it holds any.
  ScanText visible;
  const bool hidden =
      found == LeakTable::kEmpty && NormalizeForScan(text, &visible);
  if (hidden) {
    found = table_->FirstWindow(visible.text, &at);
    at = visible.SourceOffset(at);
  }
  if (found == LeakTable::kEmpty) return std::nullopt;
  return MakeViolation(
      "argument_leak",
      absl::StrCat(ArgumentPartName(part), " repeats ", kWindow,
                   " or more consecutive bytes of protected text #",
                   TextNumber(found), " (from byte ", at,
                   hidden ? ", split by invisible characters" : "",
                   "); do not copy the system prompt or secrets into tool "
                   "arguments, summarise instead"));
}

}  // namespace toolgate::policy
