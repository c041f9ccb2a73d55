// Byte-level scanning for the fast JSON parser
// (strict_json_parser_internal.h): string runs, UTF-8, hex escapes and the
// rare number conversion std::from_chars cannot do. Hot helpers are inline.
//
// Not part of the public API (core/json, and core/gate/plain_scanner.cc,
// which scans strings with the same primitives).
#ifndef TOOLGATE_CORE_JSON_STRICT_JSON_SCAN_INTERNAL_H_
#define TOOLGATE_CORE_JSON_STRICT_JSON_SCAN_INTERNAL_H_

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "core/json/utf8.h"

namespace toolgate {
namespace json_internal {

inline bool IsJsonWhitespace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

inline bool IsDigit(char c) {
  return static_cast<unsigned char>(c - '0') < 10;
}

// Bytes that end a run of string content copied as is: the closing quote,
// an escape, control characters (refused unescaped) and non-ASCII bytes
// (validated as UTF-8).
constexpr std::array<bool, 256> MakeStringStopTable() {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c) {
    t[c] = c < 0x20 || c >= 0x80 || c == '"' || c == '\\';
  }
  return t;
}
inline constexpr std::array<bool, 256> kStringStop = MakeStringStopTable();

inline bool IsStringStop(char c) {
  return kStringStop[static_cast<unsigned char>(c)];
}

// Offset of the first string-stop byte among the 8 at `p`, 8 if none.
inline int FirstStringStop8(const char* p) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHighs = 0x8080808080808080ull;
  uint64_t v;
  std::memcpy(&v, p, 8);
  const auto has_zero = [](uint64_t x) { return (x - kOnes) & ~x; };
  // A byte is flagged when it is >= 0x80, < 0x20, '"' or '\\'. The tricks
  // can flag bytes above a flagged one (borrows), never below it, so the
  // lowest flag is exact.
  const uint64_t stop = (v | ((v - kOnes * 0x20) & ~v) |
                         has_zero(v ^ (kOnes * '"')) |
                         has_zero(v ^ (kOnes * '\\'))) &
                        kHighs;
  if (stop == 0) return 8;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return 0;  // The lowest flag is the last byte here: let the caller's
             // byte loop decide.
#else
  return __builtin_ctzll(stop) >> 3;
#endif
}

// The first string-stop byte in [p, end), or end. Strings are mostly ASCII
// runs: 16 bytes (SSE2) or 8 (one word) at a time instead of a load and a
// branch per byte.
inline const char* SkipPlainStringBytes(const char* p, const char* end) {
#if defined(__SSE2__)
  // Signed < 0x20 catches control characters and, as negative numbers,
  // every byte >= 0x80.
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i space = _mm_set1_epi8(0x20);
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i stop = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
        _mm_cmplt_epi8(v, space));
    const int mask = _mm_movemask_epi8(stop);
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (end - p >= 8) {
    const int n = FirstStringStop8(p);
    p += n;
    if (n < 8) break;
  }
  while (p < end && !IsStringStop(*p)) ++p;
  return p;
}

// The UTF-8 table lives in core/json/utf8.h (one copy for the parser and
// every other check).
inline size_t Utf8Length(const char* p, const char* end) {
  return ::toolgate::Utf8SequenceLength(p, end);
}

// The four hex digits at `p` (which holds at least 4 bytes) as a number,
// -1 if any is not a hex digit.
int ReadHex4(const char* p);

// Appends code point `cp` (at most U+10FFFF, no surrogate) as UTF-8.
void AppendUtf8(uint32_t cp, std::string* out);

// glibc's strtod on [begin, end) in the C locale. For the rare spans
// std::from_chars reports out of range, it gives exactly what nlohmann
// (strtod on its token) gives: +-0 or a subnormal on underflow, +-inf on
// overflow. The C locale keeps a process-wide setlocale from changing the
// decimal point.
double StrtodInCLocale(const char* begin, const char* end);

// Whether a number literal may stand for the double it was read as. Both
// parsers refuse what is not kExact, so a number is accepted only when the
// double, written in shortest round-trip form, is the very number the
// literal denotes (0.1 and 1e2 are; 9007199254740992.5, read as
// 9007199254740992, is not). On accepted numbers, comparing doubles then
// gives exactly what comparing the written decimals would.
enum class NumberFit {
  kExact,
  kOverflow,   // Beyond double range (read as +-inf).
  kUnderflow,  // Not zero, but read as +-0.
  kInexact,    // Read as a different number.
};

// `literal` is an RFC 8259 number, `value` what it reads as (correctly
// rounded).
NumberFit FitNumber(std::string_view literal, double value);

// Writes finite `value` in nlohmann's layout (what Json::dump writes:
// "1.0", "0.0001", "1e-05", "1.5e+16") but always with the shortest
// round-trip digits closest to the value (std::to_chars's), which
// nlohmann's Grisu2 misses for about one double in a thousand. Returns the
// end of the text; `buf` needs 32 bytes.
char* FormatDouble(double value, char* buf);

}  // namespace json_internal
}  // namespace toolgate

#endif  // TOOLGATE_CORE_JSON_STRICT_JSON_SCAN_INTERNAL_H_
