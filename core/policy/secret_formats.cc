// argument_secret: one pass over the text; a candidate is only looked at
// where a token can start, and verified within a bounded window, so the
// scan stays linear whatever the input.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/policy/secret_checks.h"
#include "core/policy/secret_formats_internal.h"
#include "core/text/invisible_chars.h"

namespace toolgate::policy {
namespace {

constexpr bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
constexpr bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
constexpr bool IsDigit(char c) { return c >= '0' && c <= '9'; }
constexpr bool IsAlnum(char c) {
  return IsUpper(c) || IsLower(c) || IsDigit(c);
}
bool IsWord(char c) { return IsAlnum(c) || c == '_'; }
bool IsUrlSafe(char c) { return IsWord(c) || c == '-'; }
bool IsBase64(char c) { return IsAlnum(c) || c == '+' || c == '/'; }
bool IsUpperOrDigit(char c) { return IsUpper(c) || IsDigit(c); }
bool IsBearerByte(char c) {
  return IsUrlSafe(c) || c == '.' || c == '~' || c == '+' || c == '/' ||
         c == '=';
}

// Length of the run of `pred` bytes at `text[pos]`, counting at most `cap`.
template <typename Pred>
size_t Run(absl::string_view text, size_t pos, size_t cap, Pred pred) {
  size_t n = 0;
  while (n < cap && pos + n < text.size() && pred(text[pos + n])) ++n;
  return n;
}

bool At(absl::string_view text, size_t pos, absl::string_view prefix) {
  return text.substr(pos, prefix.size()) == prefix;
}

bool EndsRun(absl::string_view text, size_t pos, bool (*pred)(char)) {
  return pos >= text.size() || !pred(text[pos]);
}

// Exactly `len` bytes of `pred` after `prefix`, then not another one.
bool Fixed(absl::string_view text, size_t i, absl::string_view prefix,
           size_t len, bool (*pred)(char), bool (*word)(char)) {
  if (!At(text, i, prefix)) return false;
  const size_t start = i + prefix.size();
  return Run(text, start, len, pred) == len && EndsRun(text, start + len, word);
}

bool AtLeast(absl::string_view text, size_t pos, size_t len,
             bool (*pred)(char)) {
  return Run(text, pos, len, pred) == len;
}

bool PemPrivateKey(absl::string_view text, size_t i) {
  if (!At(text, i, "-----BEGIN ")) return false;
  const absl::string_view rest = text.substr(i + 11, 64);
  const size_t close = rest.find("-----");
  if (close == absl::string_view::npos) return false;
  const absl::string_view label = rest.substr(0, close);
  return absl::EndsWith(label, "PRIVATE KEY") ||
         absl::EndsWith(label, "PRIVATE KEY BLOCK");
}

bool MixedKey(absl::string_view text, size_t pos) {
  constexpr size_t kMin = 32;
  const size_t n = Run(text, pos, 256, IsUrlSafe);
  if (n < kMin) return false;
  bool upper = false, lower = false, digit = false;
  for (char c : text.substr(pos, n)) {
    upper |= IsUpper(c);
    lower |= IsLower(c);
    digit |= IsDigit(c);
  }
  return upper && lower && digit;
}

bool SlackToken(absl::string_view text, size_t i) {
  if (!At(text, i, "xox") || i + 4 >= text.size() || text[i + 4] != '-') {
    return false;
  }
  if (absl::string_view("abprs").find(text[i + 3]) == absl::string_view::npos) {
    return false;
  }
  const size_t n =
      Run(text, i + 5, 64, [](char c) { return IsAlnum(c) || c == '-'; });
  if (n < 10) return false;
  for (char c : text.substr(i + 5, n)) {
    if (IsDigit(c)) return true;
  }
  return false;
}

bool BearerToken(absl::string_view text, size_t i) {
  if (!absl::EqualsIgnoreCase(text.substr(i, 6), "bearer")) return false;
  size_t pos = i + 6;
  const size_t blanks =
      Run(text, pos, 16, [](char c) { return c == ' ' || c == '\t'; });
  if (blanks == 0) return false;
  pos += blanks;
  const size_t n = Run(text, pos, 256, IsBearerByte);
  if (n < 20) return false;
  for (size_t k = 0; k < n; ++k) {
    const char c = text[pos + k];
    if (IsDigit(c) || (k > 0 && IsUpper(c))) return true;
  }
  return false;
}

// header.payload.signature, header and payload JSON objects (eyJ = '{"').
bool Jwt(absl::string_view text, size_t i) {
  constexpr size_t kMaxSegment = 16384;
  size_t pos = i;
  for (int segment = 0; segment < 2; ++segment) {
    if (!At(text, pos, "eyJ")) return false;
    const size_t n = Run(text, pos, kMaxSegment, IsUrlSafe);
    if (n < 10 || pos + n >= text.size() || text[pos + n] != '.') return false;
    pos += n + 1;
  }
  return true;  // The signature may be empty (alg "none").
}

}  // namespace

namespace internal {

absl::string_view SecretKindAt(absl::string_view text, size_t i) {
  const char prev = i == 0 ? ' ' : text[i - 1];
  // Starts only where the token's own bytes don't continue from the left:
  // besides precision, that keeps one run from being re-verified from each
  // of its bytes.
  switch (text[i]) {
    case '-':
      if (PemPrivateKey(text, i)) return "a PEM private key";
      break;
    case 'A':
      if (IsAlnum(prev)) break;
      if (Fixed(text, i, "AKIA", 16, IsUpperOrDigit, IsAlnum) ||
          Fixed(text, i, "ASIA", 16, IsUpperOrDigit, IsAlnum)) {
        return "an AWS access key id";
      }
      if (!IsUrlSafe(prev) &&
          Fixed(text, i, "AIza", 35, IsUrlSafe, IsUrlSafe)) {
        return "a Google API key";
      }
      if (At(text, i, "AccountKey=") && AtLeast(text, i + 11, 40, IsBase64)) {
        return "an Azure account key";
      }
      break;
    case 'S':
      if (!IsAlnum(prev) && At(text, i, "SharedAccessKey=") &&
          AtLeast(text, i + 16, 40, IsBase64)) {
        return "an Azure shared access key";
      }
      break;
    case 'g':
      if (IsWord(prev)) break;
      for (absl::string_view p : {"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}) {
        if (At(text, i, p) && AtLeast(text, i + 4, 36, IsAlnum)) {
          return "a GitHub token";
        }
      }
      if (At(text, i, "github_pat_") && AtLeast(text, i + 11, 40, IsWord)) {
        return "a GitHub token";
      }
      break;
    case 'x':
      if (!IsUrlSafe(prev) && SlackToken(text, i)) return "a Slack token";
      break;
    case 's':
    case 'r':
      if (IsUrlSafe(prev)) break;
      if (text[i] == 's' && At(text, i, "sk-") && MixedKey(text, i + 3)) {
        return "an API secret key (sk-...)";
      }
      if ((At(text, i, "sk_live_") || At(text, i, "rk_live_")) &&
          AtLeast(text, i + 8, 24, IsAlnum)) {
        return "a Stripe secret key";
      }
      break;
    case 'B':
    case 'b':
      if (!IsWord(prev) && BearerToken(text, i)) return "a bearer token";
      break;
    case 'e':
      if (!IsUrlSafe(prev) && prev != '.' && Jwt(text, i)) return "a JWT";
      break;
  }
  return {};
}

}  // namespace internal

namespace {

using ::toolgate::text::IsPlainByte;

// The first two bytes of every format (SecretKindAt decides the rest), as
// tables: per byte, whether it is alphanumeric and its class (0: no format
// starts with it), and per class the second bytes it allows as a bitset.
// Every format but a PEM block starts only after a byte that is not
// alphanumeric (SecretKindAt checks each one's exact rule), so a format's
// first letter inside a word, the common case in prose, costs one test.
//
// Until the scan meets a byte NormalizeForScan may change, such bytes are
// a class of their own that passes every test: the scan notes the first
// past the tests and goes on with a table where they are class 0. A plain
// text (the common case) pays nothing to learn that it needs no second
// read, and other text pays for one byte.
constexpr const char* kStarts[] = {"--", "AK", "AS", "AI", "Ac", "Sh",
                                   "gh", "gi", "xo", "sk", "rk", "Be",
                                   "BE", "be", "bE", "ey"};
constexpr uint8_t kAlnumBit = 0x80;
constexpr uint8_t kAfterAlnumBit = 0x40;  // May start right after one.
constexpr uint8_t kClassMask = 0x1f;
constexpr uint8_t kNotPlainClass = kClassMask;
struct StartTable {
  uint8_t info[256] = {};  // kAlnumBit | kAfterAlnumBit | class.
  uint64_t second[kClassMask + 1][4] = {};
  constexpr explicit StartTable(bool note_not_plain) {
    for (int c = 0; c < 256; ++c) {
      if (IsAlnum(static_cast<char>(c))) info[c] = kAlnumBit;
      if (note_not_plain && !IsPlainByte(static_cast<unsigned char>(c))) {
        info[c] = kAfterAlnumBit | kNotPlainClass;
      }
    }
    for (uint64_t& bits : second[kNotPlainClass]) bits = ~uint64_t{0};
    info[static_cast<uint8_t>('-')] |= kAfterAlnumBit;  // PEM.
    uint8_t classes = 0;
    for (const char* pair : kStarts) {
      const auto first = static_cast<uint8_t>(pair[0]);
      const auto second_byte = static_cast<uint8_t>(pair[1]);
      if ((info[first] & kClassMask) == 0) info[first] |= ++classes;
      const uint8_t cls = info[first] & kClassMask;
      second[cls][second_byte >> 6] |= uint64_t{1} << (second_byte & 63);
    }
  }
  bool SecondAllowed(uint8_t cls, uint8_t b) const {
    return ((second[cls][b >> 6] >> (b & 63)) & 1) != 0;
  }
};
constexpr StartTable kNotingTable(/*note_not_plain=*/true);
constexpr StartTable kPlainTable(/*note_not_plain=*/false);
static_assert(sizeof(kStarts) / sizeof(kStarts[0]) < kNotPlainClass);

using ::toolgate::text::NormalizeForScan;
using ::toolgate::text::ScanText;

// The kind of the first token in `text` and its offset in *at; empty when
// there is none. Then *plain says whether every byte was IsPlainByte.
absl::string_view FirstSecret(absl::string_view text, size_t* at, bool* plain) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
  const StartTable* table = &kNotingTable;
  uint8_t prev = 0;  // The start of the text is a boundary.
  // Every format is longer than two bytes.
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    const uint8_t info = table->info[bytes[i]];
    const bool after_alnum = (prev & kAlnumBit) != 0;
    prev = info;
    const uint8_t cls = info & kClassMask;
    if (cls == 0 || (after_alnum && (info & kAfterAlnumBit) == 0) ||
        !table->SecondAllowed(cls, bytes[i + 1])) {
      continue;
    }
    if (cls == kNotPlainClass) {
      table = &kPlainTable;
      continue;
    }
    const absl::string_view kind = internal::SecretKindAt(text, i);
    if (!kind.empty()) {
      *at = i;
      return kind;
    }
  }
  *plain = table == &kNotingTable &&
           (text.empty() || IsPlainByte(bytes[text.size() - 1]));
  return {};
}

}  // namespace

namespace internal {

// FindSecret passed over shorter texts: NormalizeForScan never lengthens a
// text, so none with invisible characters is missed either.
std::optional<ArgumentViolation> FindSecretInText(absl::string_view text,
                                                  ArgumentPart part) {
  size_t at = 0;
  bool plain;
  absl::string_view kind = FirstSecret(text, &at, &plain);
  // No token in the bytes as sent: read them again without invisible
  // characters, if they hold any (a token split by U+200B is still the
  // token once pasted). The common text is plain: no second pass, no copy.
  bool hidden = false;
  if (kind.empty() && !plain) {
    ScanText visible;
    if (NormalizeForScan(text, &visible)) {
      hidden = true;
      kind = FirstSecret(visible.text, &at, &plain);
      at = visible.SourceOffset(at);
    }
  }
  if (kind.empty()) return std::nullopt;
  return MakeViolation(
      "argument_secret",
      absl::StrCat(ArgumentPartName(part), " contains what looks like ", kind,
                   " (at byte ", at,
                   hidden ? ", split by invisible characters" : "",
                   "); never put credentials in tool arguments",
                   part == ArgumentPart::kMemberName ? " or member names" : "",
                   ": refer to them by name and let the runtime supply them"));
}

}  // namespace internal

}  // namespace toolgate::policy
