#include "core/json/strict_json_scan_internal.h"

#include <algorithm>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/json/utf8.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace json_internal {
namespace {

// The parser's per-character entry point (Utf8Length) must agree with the
// whole-string check FindInvalidUtf8 on every lead and second byte, and on
// the bytes after them that decide a sequence.
TEST(Utf8Length, AgreesWithFindInvalidUtf8) {
  const unsigned char kTail[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90,
                                 0x9F, 0xA0, 0xBF, 0xC0, 0xF4, 0xFF};
  for (int b0 = 0x80; b0 <= 0xFF; ++b0) {
    for (int b1 = 0; b1 <= 0xFF; ++b1) {
      for (unsigned char b2 : kTail) {
        for (unsigned char b3 : kTail) {
          const char bytes[] = {static_cast<char>(b0), static_cast<char>(b1),
                                static_cast<char>(b2), static_cast<char>(b3)};
          for (size_t n = 1; n <= 4; ++n) {
            const std::string s(bytes, n);
            const size_t len = Utf8Length(s.data(), s.data() + n);
            if (len == 0) {
              ASSERT_EQ(FindInvalidUtf8(s), 0u) << b0 << " " << b1;
            } else {
              ASSERT_LE(len, n);
              ASSERT_EQ(FindInvalidUtf8(s.substr(0, len)),
                        absl::string_view::npos);
            }
          }
        }
      }
    }
  }
}

// The SSE2 and word-at-a-time paths must stop exactly where a byte loop
// does, whatever the alignment and whichever byte stops them.
TEST(SkipPlainStringBytes, StopsWhereAByteLoopStops) {
  const char kInteresting[] = {'\0', 0x1F, ' ', '!', '"', '#', '[', '\\',
                               ']', 0x7F, static_cast<char>(0x80),
                               static_cast<char>(0xBF), static_cast<char>(0xFF),
                               'a'};
  std::mt19937 rng(7);
  for (int i = 0; i < 200000; ++i) {
    std::string buf(rng() % 70, 'x');
    for (char& c : buf) {
      if (rng() % 8 == 0) c = kInteresting[rng() % sizeof(kInteresting)];
    }
    const char* begin = buf.data();
    const char* end = begin + buf.size();
    const char* expected = begin;
    while (expected < end && !IsStringStop(*expected)) ++expected;
    ASSERT_EQ(SkipPlainStringBytes(begin, end), expected) << buf;
  }
}

TEST(ReadHex4, AllValuesBothCasesAndNonHex) {
  char buf[8];
  for (int v = 0; v <= 0xFFFF; ++v) {
    std::snprintf(buf, sizeof(buf), "%04x", v);
    ASSERT_EQ(ReadHex4(buf), v);
    std::snprintf(buf, sizeof(buf), "%04X", v);
    ASSERT_EQ(ReadHex4(buf), v);
  }
  for (const char* bad : {"g000", "0G00", "00 0", "000/", "000:", "@000",
                          "`000", "-001", "+001"}) {
    EXPECT_EQ(ReadHex4(bad), -1) << bad;
  }
}

TEST(AppendUtf8, EncodesEveryScalarValueValidly) {
  for (uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    std::string s;
    AppendUtf8(cp, &s);
    const size_t want = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    ASSERT_EQ(s.size(), want) << cp;
    ASSERT_EQ(FindInvalidUtf8(s), absl::string_view::npos) << cp;
  }
}

// FitNumber's rule, checked against std::to_chars directly: a literal is
// exact when its value equals the shortest form of the double it reads as.
// Random literals of 1 to 19 digits and exponents across the whole range
// (normal, subnormal, underflow, overflow) exercise the fast path for 15
// digits or fewer as well as the full comparison.
TEST(FitNumber, AgreesWithShortestFormByToChars) {
  std::mt19937_64 rng(99);
  int exact = 0, inexact = 0, out_of_range = 0;
  for (int i = 0; i < 300000; ++i) {
    std::string digits;
    const int n = 1 + static_cast<int>(rng() % 19);
    digits += static_cast<char>('1' + rng() % 9);
    for (int k = 1; k < n; ++k) digits += static_cast<char>('0' + rng() % 10);
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    const int exponent = static_cast<int>(rng() % 680) - 345;
    const std::string literal =
        absl::StrCat(rng() % 2 ? "-" : "", digits.substr(0, 1), ".",
                     digits.size() > 1 ? digits.substr(1) : "0", "e", exponent);
    const double value = std::strtod(literal.c_str(), nullptr);
    const NumberFit fit = FitNumber(literal, value);
    if (!std::isfinite(value) || value == 0) {
      ASSERT_NE(fit, NumberFit::kExact) << literal;
      ++out_of_range;
      continue;
    }
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, std::fabs(value),
                                 std::chars_format::scientific);
    const std::string shortest(buf, r.ptr);
    // Same digits and exponent as the literal's d.ddd e exponent?
    const size_t e = shortest.find('e');
    std::string shortest_digits = shortest.substr(0, e);
    shortest_digits.erase(
        std::remove(shortest_digits.begin(), shortest_digits.end(), '.'),
        shortest_digits.end());
    const bool same = shortest_digits == digits &&
                      std::stoi(shortest.substr(e + 1)) == exponent;
    ASSERT_EQ(fit, same ? NumberFit::kExact : NumberFit::kInexact)
        << literal << " shortest " << shortest;
    ++(same ? exact : inexact);
  }
  EXPECT_GT(exact, 100000);
  EXPECT_GT(inexact, 10000);
  EXPECT_GT(out_of_range, 1000);
}

TEST(StrtodInCLocale, GivesGlibcResultsWhateverTheLocale) {
  const auto parse = [](const std::string& s) {
    return StrtodInCLocale(s.data(), s.data() + s.size());
  };
  // A locale with a decimal comma, when the machine has one.
  for (const char* name : {"de_DE.UTF-8", "fr_FR.UTF-8", "C"}) {
    if (std::setlocale(LC_NUMERIC, name) != nullptr) break;
  }
  EXPECT_EQ(parse("2.5"), 2.5);
  EXPECT_TRUE(std::isinf(parse("1e400")));
  EXPECT_TRUE(std::isinf(parse("-1e400")) && parse("-1e400") < 0);
  EXPECT_EQ(parse("1e-400"), 0.0);
  EXPECT_TRUE(std::signbit(parse("-1e-400")));
  EXPECT_GT(parse("4e-320"), 0.0);  // Subnormal, not flushed.
  std::setlocale(LC_NUMERIC, "C");
}

}  // namespace
}  // namespace json_internal
}  // namespace toolgate
