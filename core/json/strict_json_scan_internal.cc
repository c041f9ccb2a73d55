#include "core/json/strict_json_scan_internal.h"

#include <locale.h>  // newlocale, strtod_l (glibc)

#include <algorithm>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

namespace toolgate {
namespace json_internal {
namespace {

// The shortest round-trip form of a double has at most 17 significant
// digits.
constexpr int kMaxShortestDigits = 17;

// A non-zero decimal as value = digits * 10^exponent, the digits without
// leading or trailing zeros. `count` is the number of significant digits;
// only the first kMaxShortestDigits are kept.
struct Decimal {
  char digits[kMaxShortestDigits];
  int count = 0;
  int64_t exponent = 0;

  bool operator==(const Decimal& o) const {
    return count == o.count && exponent == o.exponent &&
           count <= kMaxShortestDigits &&
           std::memcmp(digits, o.digits, count) == 0;
  }
};

// Reads an RFC 8259 number (std::to_chars's scientific output fits too).
// Returns false when it denotes zero. The exponent saturates far beyond
// double range, where the value can only have read as 0 or infinity.
bool ReadDecimal(std::string_view text, Decimal* out) {
  const size_t begin = (!text.empty() && text[0] == '-') ? 1 : 0;
  const size_t mantissa_end =
      std::min(text.find_first_of("eE", begin), text.size());
  int64_t exponent = 0;
  if (mantissa_end < text.size()) {
    size_t j = mantissa_end + 1;
    const bool negative = j < text.size() && text[j] == '-';
    if (j < text.size() && (text[j] == '-' || text[j] == '+')) ++j;
    constexpr int64_t kSaturated = int64_t{1} << 50;
    for (; j < text.size(); ++j) {
      exponent = std::min(kSaturated, exponent * 10 + (text[j] - '0'));
    }
    if (negative) exponent = -exponent;
  }
  // Positions in the mantissa's digit sequence, the point skipped.
  int64_t index = 0, first = -1, last = -1, fraction_digits = 0;
  bool in_fraction = false;
  for (size_t k = begin; k < mantissa_end; ++k) {
    if (text[k] == '.') {
      in_fraction = true;
      continue;
    }
    if (text[k] != '0') {
      if (first < 0) first = index;
      last = index;
    }
    fraction_digits += in_fraction;
    ++index;
  }
  if (first < 0) return false;
  out->count = static_cast<int>(std::min<int64_t>(last - first + 1, 1 << 30));
  out->exponent = exponent - fraction_digits + (index - 1 - last);
  if (out->count <= kMaxShortestDigits) {
    int n = 0;
    index = 0;
    for (size_t k = begin; k < mantissa_end && index <= last; ++k) {
      if (text[k] == '.') continue;
      if (index >= first) out->digits[n++] = text[k];
      ++index;
    }
  }
  return true;
}

// The shortest round-trip form of finite, non-zero `value`'s magnitude
// (the one closest to it when several are as short).
Decimal Shortest(double value) {
  char buf[32];
  const auto result = std::to_chars(buf, buf + sizeof buf, std::fabs(value),
                                    std::chars_format::scientific);
  Decimal d;
  ReadDecimal(std::string_view(buf, result.ptr - buf), &d);
  return d;
}

// nlohmann's dtoa_impl::append_exponent: a sign and at least two digits.
char* AppendExponent(char* buf, int e) {
  *buf++ = e < 0 ? '-' : '+';
  unsigned k = static_cast<unsigned>(e < 0 ? -e : e);
  if (k >= 100) {
    *buf++ = static_cast<char>('0' + k / 100);
    k %= 100;
  }
  *buf++ = static_cast<char>('0' + k / 10);
  *buf++ = static_cast<char>('0' + k % 10);
  return buf;
}

// nlohmann's dtoa_impl::format_buffer with the bounds its to_chars uses:
// `buf` holds the k digits of value = digits * 10^(n - k).
char* FormatBuffer(char* buf, int k, int n) {
  constexpr int kMinExp = -4;
  constexpr int kMaxExp = 15;    // numeric_limits<double>::digits10
  if (k <= n && n <= kMaxExp) {  // digits[000].0
    std::memset(buf + k, '0', n - k);
    buf[n] = '.';
    buf[n + 1] = '0';
    return buf + n + 2;
  }
  if (0 < n && n <= kMaxExp) {  // dig.its
    std::memmove(buf + n + 1, buf + n, k - n);
    buf[n] = '.';
    return buf + k + 1;
  }
  if (kMinExp < n && n <= 0) {  // 0.[000]digits
    std::memmove(buf + 2 - n, buf, k);
    buf[0] = '0';
    buf[1] = '.';
    std::memset(buf + 2, '0', -n);
    return buf + 2 - n + k;
  }
  if (k == 1) {  // dE+123
    buf += 1;
  } else {  // d.igitsE+123
    std::memmove(buf + 2, buf + 1, k - 1);
    buf[1] = '.';
    buf += 1 + k;
  }
  *buf++ = 'e';
  return AppendExponent(buf, n - 1);
}

}  // namespace

int ReadHex4(const char* p) {
  int value = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = p[i];
    int digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return -1;
    }
    value = value * 16 + digit;
  }
  return value;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  char buf[4];
  size_t n;
  if (cp < 0x80) {
    buf[0] = static_cast<char>(cp);
    n = 1;
  } else if (cp < 0x800) {
    buf[0] = static_cast<char>(0xC0 | (cp >> 6));
    buf[1] = static_cast<char>(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    buf[0] = static_cast<char>(0xE0 | (cp >> 12));
    buf[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    buf[2] = static_cast<char>(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    buf[0] = static_cast<char>(0xF0 | (cp >> 18));
    buf[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    buf[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    buf[3] = static_cast<char>(0x80 | (cp & 0x3F));
    n = 4;
  }
  out->append(buf, n);
}

double StrtodInCLocale(const char* begin, const char* end) {
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t{});
  const std::string text(begin, end);
  return strtod_l(text.c_str(), nullptr, c_locale);
}

NumberFit FitNumber(std::string_view literal, double value) {
  if (!std::isfinite(value)) return NumberFit::kOverflow;
  Decimal written;
  if (!ReadDecimal(literal, &written)) return NumberFit::kExact;  // +-0
  if (value == 0) return NumberFit::kUnderflow;
  // Fast path, most numbers: two different decimals of at most 15 digits
  // (DBL_DIG) never read as the same normal double, so such a literal is
  // its double's shortest form.
  if (written.count <= 15 && std::fabs(value) >= DBL_MIN) {
    return NumberFit::kExact;
  }
  return written == Shortest(value) ? NumberFit::kExact : NumberFit::kInexact;
}

char* FormatDouble(double value, char* buf) {
  if (std::signbit(value)) *buf++ = '-';
  if (value == 0) {
    std::memcpy(buf, "0.0", 3);
    return buf + 3;
  }
  const Decimal d = Shortest(value);
  std::memcpy(buf, d.digits, d.count);
  return FormatBuffer(buf, d.count, static_cast<int>(d.count + d.exponent));
}

}  // namespace json_internal
}  // namespace toolgate
