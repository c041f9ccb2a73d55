// Secrets in string arguments (issue 12): well-known credential formats
// (`argument_secret`) and copies of the run's protected texts
// (`argument_leak`). Neither violation message ever quotes the argument.
//
// Both read a string twice when it holds invisible characters: as sent,
// and as text::NormalizeForScan leaves it (core/text/invisible_chars.h:
// zero-width, bidi, soft hyphen and other format characters removed, odd
// spaces and line breaks made plain), so a token or a protected text split
// by U+200B is still found. A string without any is read once, not copied.
// Offsets in messages are into the string as sent. `part` says whether the
// string is a value or an object member's name (keys are scanned too) and
// only changes the message.
//
// Thread-safety: FindSecret is a pure function; LeakTable and LeakDetector
// are immutable after construction and Check may run concurrently from any
// thread.
#ifndef TOOLGATE_CORE_POLICY_SECRET_CHECKS_H_
#define TOOLGATE_CORE_POLICY_SECRET_CHECKS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/policy/argument_violation.h"

namespace toolgate::policy {

// argument_secret when `text` contains one of these, anywhere:
//   PEM private key marker  -----BEGIN [RSA |EC |OPENSSH |ENCRYPTED |PGP ...]
//                           PRIVATE KEY[ BLOCK]----- (the marker alone counts)
//   AWS access key id       AKIA / ASIA + 16 of [A-Z0-9], as a whole word
//   Google API key          AIza + 35 of [A-Za-z0-9_-]
//   Azure connection key    AccountKey= / SharedAccessKey= + 40 base64 bytes
//   GitHub token            ghp_ gho_ ghu_ ghs_ ghr_ + 36 alphanumerics;
//                           github_pat_ + 40 of [A-Za-z0-9_]
//   Slack token             xox[abprs]- + 10 of [A-Za-z0-9-] with a digit
//   OpenAI/Anthropic key    sk- + 32 of [A-Za-z0-9_-] with upper, lower and
//                           digit; Stripe sk_live_/rk_live_ + 24 alphanumerics
//   Bearer token            "Bearer" (any case), blanks, then 20+ token
//                           bytes with a digit or an inner capital
//   JWT                     eyJ... . eyJ... . [signature, possibly empty]
// Every token starts at a word boundary. Chosen for precision: a UUID, a
// sha256 hex digest, an ordinary word or a "Bearer of news" pass. Linear in
// the text (each candidate is verified within a bounded window).
//
// No token is shorter than kShortestSecretBytes (a Slack token, "xoxb-"
// and ten more bytes): most member names and many values are shorter, and
// are passed over inline, without a call.
inline constexpr size_t kShortestSecretBytes = 15;
namespace internal {
std::optional<ArgumentViolation> FindSecretInText(absl::string_view text,
                                                  ArgumentPart part);
}  // namespace internal
inline std::optional<ArgumentViolation> FindSecret(
    absl::string_view text, ArgumentPart part = ArgumentPart::kValue) {
  if (text.size() < kShortestSecretBytes) return std::nullopt;
  return internal::FindSecretInText(text, part);
}

// argument_leak when a string argument contains kLeakWindowBytes or more
// consecutive BYTES (not characters: 32 bytes of UTF-8 may be fewer than 32
// characters, which only makes the check stricter) of one protected text.
// Protected texts shorter than the window can never be matched. A
// protected text that holds invisible characters is stored a second time
// as NormalizeForScan leaves it, so that either form of the argument
// matches either form of the text.
//
// Two parts: a LeakTable, the heavy immutable index of a set of protected
// texts, which runs carrying the same texts share (core/run/protected_texts.h
// interns them), and a LeakDetector, one run's light view of a table that
// also knows the run's own numbering of its texts (for the message).
//
// The table: every distinct 32-byte window of the protected texts (and
// their normal forms) is stored by its rolling hash in an open-addressing
// table (load <= 1/2) of 8-byte slots, and each hit is confirmed with
// memcmp, so a hash collision never decides. Memory: 1 byte (a copy) + 16
// to 32 bytes (table, capacity rounded up to a power of two) per protected
// byte, up to twice that for texts with invisible characters;
// MemoryBytes() reports the exact figure, PlannedBytes() the same before
// building. Check is linear in the argument: one rolling hash step and an
// expected O(1) probe per byte.
//
// Fail closed: if the protected texts together exceed kMaxProtectedBytes,
// Check refuses every argument of kLeakWindowBytes or more (the run's
// owner must bound protected_texts well below that).
//
// Thread-safety: both are immutable after construction; Check may run
// concurrently from any thread.
class LeakTable {
 public:
  static constexpr size_t kLeakWindowBytes = 32;
  static constexpr size_t kMaxProtectedBytes = size_t{1} << 28;
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;

  // `max_protected_bytes` (at most kMaxProtectedBytes) is a parameter so
  // that the fail-closed path can be tested without a 256 MiB input.
  explicit LeakTable(const std::vector<std::string>& protected_texts,
                     size_t max_protected_bytes = kMaxProtectedBytes);
  LeakTable(const LeakTable&) = delete;
  LeakTable& operator=(const LeakTable&) = delete;

  // What MemoryBytes() of a table of `protected_texts` will be, computed
  // without building it (so that a budget can refuse before the work).
  static size_t PlannedBytes(const std::vector<std::string>& protected_texts,
                             size_t max_protected_bytes = kMaxProtectedBytes);

  // Heap bytes held (the text copies and the table).
  size_t MemoryBytes() const;
  // Distinct windows stored.
  size_t window_count() const { return window_count_; }
  size_t text_count() const { return text_count_; }
  bool over_limit() const { return over_limit_; }
  bool empty() const { return slots_.empty(); }
  // Whether the table was built from exactly these texts, in this order.
  bool Holds(const std::vector<std::string>& protected_texts) const;

  // Offset in the table of the first stored window in `text`, or kEmpty;
  // the window's offset in `text` in *at.
  uint32_t FirstWindow(absl::string_view text, size_t* at) const;
  // Which protected text (0-based, in the order given) holds the table's
  // byte `offset`.
  size_t TextIndex(uint32_t offset) const;

 private:
  struct Slot {
    uint32_t fingerprint;
    uint32_t offset;  // Into data_; kEmpty when unused.
  };

  // Appends `text` to data_ as a form of protected text `index`.
  void Append(absl::string_view text, uint32_t index);
  void Insert(uint64_t hash, uint32_t offset);
  // Offset of a stored window equal to the kLeakWindowBytes at `window`
  // (whose rolling hash is `hash`), or kEmpty.
  uint32_t Find(uint64_t hash, const char* window) const;

  std::string data_;  // The protected texts (and normal forms), joined.
  std::vector<uint32_t> ends_;   // End offset of each form in data_.
  std::vector<uint32_t> texts_;  // Protected text of each form.
  std::vector<Slot> slots_;      // Power-of-two size, or empty.
  int shift_ = 64;               // 64 - log2(slots_.size()).
  size_t window_count_ = 0;
  size_t text_count_ = 0;
  bool over_limit_ = false;
};

class LeakDetector {
 public:
  static constexpr size_t kLeakWindowBytes = LeakTable::kLeakWindowBytes;
  static constexpr size_t kMaxProtectedBytes = LeakTable::kMaxProtectedBytes;

  // A table of its own; texts are numbered in the order given.
  explicit LeakDetector(const std::vector<std::string>& protected_texts,
                        size_t max_protected_bytes = kMaxProtectedBytes);
  // Shares `table` (not null). Text i of the table is called
  // "protected text #text_numbers[i]" in messages; a missing entry keeps i.
  LeakDetector(std::shared_ptr<const LeakTable> table,
               std::vector<uint32_t> text_numbers);

  // Texts shorter than the window are passed over inline.
  std::optional<ArgumentViolation> Check(
      absl::string_view text, ArgumentPart part = ArgumentPart::kValue) const {
    if (text.size() < kLeakWindowBytes) return std::nullopt;
    return CheckWindows(text, part);
  }

  // The shared table's figures.
  size_t MemoryBytes() const { return table_->MemoryBytes(); }
  size_t window_count() const { return table_->window_count(); }
  const std::shared_ptr<const LeakTable>& table() const { return table_; }

 private:
  std::optional<ArgumentViolation> CheckWindows(absl::string_view text,
                                                ArgumentPart part) const;
  // The caller's number of the text holding the table's byte `offset`.
  size_t TextNumber(uint32_t offset) const;

  std::shared_ptr<const LeakTable> table_;
  std::vector<uint32_t> text_numbers_;
};

}  // namespace toolgate::policy

#endif  // TOOLGATE_CORE_POLICY_SECRET_CHECKS_H_
