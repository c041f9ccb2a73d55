// The pythonic grammar's literals: strings with Python's escapes, and
// numbers mapped exactly to JSON or refused (pythonic_reader.h).
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/extract/formats/pythonic_reader.h"
#include "core/json/strict_json_scan_internal.h"
#include "core/json/utf8.h"

namespace toolgate {
namespace extract {
namespace formats {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendCodePoint(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Bytes copied as they are inside a string: not a quote, a backslash, a
// control character or a non-ASCII byte.
struct PlainTable {
  bool plain[256];
};
constexpr PlainTable MakePlainTable() {
  PlainTable t{};
  for (int c = 0x20; c < 0x80; ++c) {
    t.plain[c] = c != '\'' && c != '"' && c != '\\';
  }
  return t;
}
inline constexpr PlainTable kPlain = MakePlainTable();
inline bool IsPlainStringByte(unsigned char c) { return kPlain.plain[c]; }

size_t DigitsEnd(absl::string_view text, size_t p) {
  while (p < text.size() && IsDigit(text[p])) ++p;
  return p;
}

}  // namespace

bool PythonicReader::ReadStringValue(Json* out) {
  absl::string_view plain;
  if (ReadPlainString(&plain)) {
    *out = Json(Json::string_t(plain.data(), plain.size()));
  } else {
    Json::string_t s;
    if (!ReadString(&s)) return false;
    *out = Json(std::move(s));
  }
  return NoConcatenation();
}

bool PythonicReader::ReadPlainString(absl::string_view* out) {
  const char quote = text_[p_];
  size_t i = p_ + 1;
  if (i < text_.size() && text_[i] == quote) {
    return false;  // '' or a triple quote: the general reader decides.
  }
  while (i < text_.size()) {
    const unsigned char c = static_cast<unsigned char>(text_[i]);
    if (IsPlainStringByte(c) || (c != quote && (c == '\'' || c == '"'))) {
      ++i;
    } else if (c == quote) {
      *out = text_.substr(p_ + 1, i - p_ - 1);
      p_ = i + 1;
      return true;
    } else if (c >= 0x80) {
      const size_t n = Utf8SequenceLength(text_.data() + i,
                                          text_.data() + text_.size());
      if (n == 0) return false;
      i += n;
    } else {
      return false;  // An escape or a control character.
    }
  }
  return false;
}

// 'a' 'b' is one string in Python; here it is refused.
bool PythonicReader::NoConcatenation() {
  if (p_ < text_.size()) {
    const char c = text_[p_];  // What usually follows a string.
    if (c == ',' || c == ')' || c == ']' || c == '}' || c == ':') return true;
  }
  const size_t end = p_;
  if (!SkipSpace()) return false;
  size_t q = p_;
  while (q < text_.size() && q - p_ < 3 && IsIdentChar(text_[q])) ++q;
  if (q < text_.size() && (text_[q] == '\'' || text_[q] == '"')) {
    return Fail(kUnsupportedSyntax,
                "implicit string concatenation is not read");
  }
  p_ = end;
  return true;
}

bool PythonicReader::ReadString(std::string* out) {
  const char quote = text_[p_];
  const bool triple = p_ + 2 < text_.size() && text_[p_ + 1] == quote &&
                      text_[p_ + 2] == quote;
  p_ += triple ? 3 : 1;
  while (true) {
    const size_t run = p_;
    while (p_ < text_.size() &&
           IsPlainStringByte(static_cast<unsigned char>(text_[p_]))) {
      ++p_;
    }
    out->append(text_.data() + run, p_ - run);
    if (p_ == text_.size()) return Cut("in a string");
    const unsigned char c = static_cast<unsigned char>(text_[p_]);
    if (c == quote) {
      if (!triple) {
        ++p_;
        return true;
      }
      if (p_ + 2 < text_.size() && text_[p_ + 1] == quote &&
          text_[p_ + 2] == quote) {
        p_ += 3;
        return true;
      }
      out->push_back(quote);
      ++p_;
    } else if (c == '\'' || c == '"') {
      out->push_back(static_cast<char>(c));
      ++p_;
    } else if (c == '\\') {
      if (!ReadEscape(out)) return false;
    } else if (c == '\n') {
      if (!triple) {
        return Fail(kMalformedToolCall,
                    "a line break inside a one-line string");
      }
      out->push_back('\n');
      ++p_;
    } else if (c == '\r') {
      return Fail(kUnsupportedSyntax,
                  "a raw carriage return in a string (Python reads it as a "
                  "line feed): write \\r");
    } else if (c == 0) {
      return Fail(kMalformedToolCall, "a NUL byte (Python refuses it)");
    } else if (c < 0x80) {
      out->push_back(static_cast<char>(c));  // Another control character.
      ++p_;
    } else {
      const size_t n = Utf8SequenceLength(text_.data() + p_,
                                          text_.data() + text_.size());
      if (n == 0) return Fail(kMalformedToolCall, "invalid UTF-8");
      out->append(text_.data() + p_, n);
      p_ += n;
    }
  }
}

bool PythonicReader::ReadHex(int digits, uint32_t* value) {
  *value = 0;
  for (int i = 0; i < digits; ++i, ++p_) {
    if (p_ == text_.size()) return Cut("in an escape");
    const int v = HexValue(text_[p_]);
    if (v < 0) {
      return Fail(kMalformedToolCall,
                  absl::StrCat("the escape needs ", digits, " hex digits"));
    }
    *value = *value * 16 + static_cast<uint32_t>(v);
  }
  return true;
}

bool PythonicReader::ReadEscape(std::string* out) {
  ++p_;  // The backslash.
  if (p_ == text_.size()) return Cut("in an escape");
  const char c = text_[p_++];
  uint32_t cp = 0;
  switch (c) {
    case '\n': return true;  // Line continuation.
    case '\\': case '\'': case '"': out->push_back(c); return true;
    case 'a': out->push_back('\a'); return true;
    case 'b': out->push_back('\b'); return true;
    case 'f': out->push_back('\f'); return true;
    case 'n': out->push_back('\n'); return true;
    case 'r': out->push_back('\r'); return true;
    case 't': out->push_back('\t'); return true;
    case 'v': out->push_back('\v'); return true;
    case 'x': if (!ReadHex(2, &cp)) return false; break;
    case 'u': if (!ReadHex(4, &cp)) return false; break;
    case 'U': if (!ReadHex(8, &cp)) return false; break;
    case 'N':
      --p_;
      return Fail(kUnsupportedSyntax, "\\N{...} escapes are not read");
    case '\r':
      --p_;
      return Fail(kUnsupportedSyntax,
                  "a raw carriage return after a backslash");
    default:
      if (c < '0' || c > '7') {
        p_ -= 1;
        return Fail(kUnsupportedSyntax,
                    "an invalid escape sequence (Python keeps the backslash "
                    "and warns): write \\\\");
      }
      cp = static_cast<uint32_t>(c - '0');
      for (int i = 1; i < 3 && p_ < text_.size() && text_[p_] >= '0' &&
                      text_[p_] <= '7';
           ++i) {
        cp = cp * 8 + static_cast<uint32_t>(text_[p_++] - '0');
      }
  }
  if (cp > 0x10FFFF) {
    return Fail(kMalformedToolCall, "an escape beyond U+10FFFF");
  }
  if (cp >= 0xD800 && cp <= 0xDFFF) {
    return Fail(kUnsupportedSyntax,
                "a surrogate escape: Python keeps it unpaired, which JSON "
                "text cannot hold");
  }
  AppendCodePoint(cp, out);
  return true;
}

bool PythonicReader::ReadNumber(bool negative, Json* out) {
  const size_t start = p_;
  if (text_[p_] == '0' && p_ + 1 < text_.size() &&
      absl::string_view("xXoObB").find(text_[p_ + 1]) !=
          absl::string_view::npos) {
    return Fail(kUnsupportedSyntax,
                "hexadecimal, octal and binary integers are not read");
  }
  p_ = DigitsEnd(text_, p_);
  const absl::string_view int_part = text_.substr(start, p_ - start);
  absl::string_view frac;
  const bool dot = p_ < text_.size() && text_[p_] == '.';
  if (dot) {
    const size_t f = ++p_;
    p_ = DigitsEnd(text_, p_);
    frac = text_.substr(f, p_ - f);
  }
  absl::string_view exp;
  if (p_ < text_.size() && (text_[p_] == 'e' || text_[p_] == 'E')) {
    const size_t e = p_++;
    if (p_ < text_.size() && (text_[p_] == '+' || text_[p_] == '-')) ++p_;
    if (p_ == text_.size()) return Cut("in a number's exponent");
    if (!IsDigit(text_[p_]) && text_[p_] != '_') {
      return Fail(kMalformedToolCall, "an exponent needs digits");
    }
    p_ = DigitsEnd(text_, p_);
    exp = text_.substr(e, p_ - e);
  }
  if (p_ < text_.size()) {
    const char c = text_[p_];
    if (c == '_') {
      return Fail(kUnsupportedSyntax, "digit separators (1_000) are not read");
    }
    if (c == 'j' || c == 'J') {
      return Fail(kUnsupportedSyntax, "complex numbers are not read");
    }
    if (IsIdentChar(c) || static_cast<unsigned char>(c) >= 0x80) {
      return Fail(kMalformedToolCall, "an invalid number");
    }
  }
  if (!dot && exp.empty()) return ReadInteger(negative, int_part, out);
  return ReadFloat(negative, int_part, frac, dot, exp, out);
}

bool PythonicReader::ReadInteger(bool negative, absl::string_view digits,
                                 Json* out) {
  if (digits.size() > 1 && digits[0] == '0' &&
      digits.find_first_not_of('0') != absl::string_view::npos) {
    return Fail(kMalformedToolCall,
                "leading zeros in an integer (Python refuses them)");
  }
  uint64_t magnitude = 0;
  bool overflow = false;
  for (char d : digits) {
    overflow |= __builtin_mul_overflow(magnitude, 10u, &magnitude);
    overflow |= __builtin_add_overflow(
        magnitude, static_cast<unsigned>(d - '0'), &magnitude);
  }
  constexpr uint64_t kMinMagnitude = uint64_t{1} << 63;
  if (overflow || (negative && magnitude > kMinMagnitude)) {
    return Fail(kNumberOutOfRange,
                "integers beyond -2^63 .. 2^64-1 are not read (JSON readers "
                "disagree on them)");
  }
  if (!negative) {
    *out = Json(static_cast<Json::number_unsigned_t>(magnitude));
  } else if (magnitude == kMinMagnitude) {
    *out = Json(std::numeric_limits<Json::number_integer_t>::min());
  } else {
    *out = Json(-static_cast<Json::number_integer_t>(magnitude));
  }
  return true;
}

// The same decimal in JSON's syntax, converted and checked exactly as the
// strict parser converts and checks JSON numbers (strict_json.h,
// "Numbers"): the value is the double nearest to it (as Python's float
// is), accepted only when that double is exactly the number written.
bool PythonicReader::ReadFloat(bool negative, absl::string_view int_part,
                               absl::string_view frac, bool dot,
                               absl::string_view exp, Json* out) {
  // Short decimals (nearly all) are written on the stack.
  char stack[64];
  std::string heap;
  const size_t n = 1 + int_part.size() + 2 + frac.size() + exp.size();
  char* const begin = n <= sizeof(stack) ? stack : (heap.resize(n), &heap[0]);
  char* w = begin;
  if (negative) *w++ = '-';
  const size_t nonzero = int_part.find_first_not_of('0');
  if (nonzero == absl::string_view::npos) {
    *w++ = '0';
  } else {
    std::memcpy(w, int_part.data() + nonzero, int_part.size() - nonzero);
    w += int_part.size() - nonzero;
  }
  if (dot) {
    *w++ = '.';
    if (frac.empty()) {
      *w++ = '0';
    } else {
      std::memcpy(w, frac.data(), frac.size());
      w += frac.size();
    }
  }
  if (!exp.empty()) {  // memcpy from an empty view's null data is UB.
    std::memcpy(w, exp.data(), exp.size());
    w += exp.size();
  }
  const absl::string_view json(begin, static_cast<size_t>(w - begin));
  const char* end = w;
  double value = 0;
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec == std::errc::result_out_of_range) {
    value = json_internal::StrtodInCLocale(begin, end);
  } else if (ec != std::errc() || ptr != end) {
    return Fail(kMalformedToolCall, "an invalid number");
  }
  switch (json_internal::FitNumber(std::string_view(begin, json.size()),
                                   value)) {
    case json_internal::NumberFit::kExact:
      *out = Json(value);
      return true;
    case json_internal::NumberFit::kInexact:
      return Fail(kNumberInexact,
                  absl::StrCat("the number ", json,
                               " is read as another double; write it with "
                               "at most 15 significant digits"));
    default:
      return Fail(kNumberOutOfRange,
                  absl::StrCat("the number ", json, " is beyond a double"));
  }
}

}  // namespace formats
}  // namespace extract
}  // namespace toolgate
