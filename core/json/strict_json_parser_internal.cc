#include "core/json/strict_json_parser_internal.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>

#include "absl/base/attributes.h"
#include "absl/container/inlined_vector.h"
#include "core/json/strict_json_scan_internal.h"

namespace toolgate {
namespace json_internal {
namespace {

using Json = nlohmann::json;
using ArrayT = Json::array_t;
using ObjectT = Json::object_t;

class Parser {
 public:
  Parser(absl::string_view text, int max_depth, Json* root)
      : begin_(text.data()),
        end_(text.data() + text.size()),
        p_(begin_),
        max_depth_(max_depth),
        root_(root) {}

  bool Parse();
  size_t offset() const { return static_cast<size_t>(p_ - begin_); }

 private:
  // An open array or object; exactly one pointer is set. Both point at the
  // heap containers nlohmann allocates, which stay put while the Json
  // handles holding them move (e.g. when a parent array grows).
  struct Frame {
    ArrayT* array;
    ObjectT* object;
  };
  enum class Step {
    kFail,
    kValue,  // A value is complete.
    kOpen,   // A non-empty container is open; its first value comes next.
  };

  Step ParseValue();
  Step OpenArray();
  Step OpenObject();
  bool AfterValue(bool* done);
  ABSL_ATTRIBUTE_ALWAYS_INLINE bool ParseKey(ObjectT* object);
  ABSL_ATTRIBUTE_ALWAYS_INLINE bool ParseString(std::string* scratch,
                                                std::string_view* out);
  // Out of line: keeps ParseString, the hot path, small.
  ABSL_ATTRIBUTE_NOINLINE bool ParseEscapedString(const char* start,
                                                  std::string* scratch,
                                                  std::string_view* out);
  bool ParseEscape(std::string* out);
  bool ParseNumber();
  bool ParseFloat(const char* start);
  bool ParseLiteral(std::string_view word);

  // Constructs the value from `args` where it belongs: the root, the end of
  // the innermost array, or the innermost object under the key ParseKey
  // read. Scalars are built in place, never as a null then overwritten.
  template <typename... Args>
  Json* Place(Args&&... args) {
    if (stack_.empty()) {
      *root_ = Json(std::forward<Args>(args)...);
      return root_;
    }
    const Frame& top = stack_.back();
    if (top.array != nullptr) {
      return &top.array->emplace_back(std::forward<Args>(args)...);
    }
    auto it = top.object->emplace_hint(
        key_hint_, std::piecewise_construct,
        std::forward_as_tuple(key_.data(), key_.size()),
        std::forward_as_tuple(std::forward<Args>(args)...));
    return &it->second;
  }

  void SkipPlainString() { p_ = SkipPlainStringBytes(p_, end_); }

  void SkipWhitespace() {
    while (p_ < end_ && IsJsonWhitespace(*p_)) ++p_;
  }

  const char* const begin_;
  const char* const end_;
  const char* p_;
  const int max_depth_;
  Json* const root_;
  absl::InlinedVector<Frame, 32> stack_;
  // The key of the member being parsed and where it goes in its object.
  std::string_view key_;
  ObjectT::iterator key_hint_;
  // Decoded strings with escapes; keys apart, as a key waits for its value.
  std::string key_scratch_;
  std::string value_scratch_;
};

bool Parser::Parse() {
  // nlohmann's lexer skips a UTF-8 byte order mark at the very start.
  if (end_ - p_ >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0) p_ += 3;
  while (true) {
    const Step step = ParseValue();
    if (step == Step::kFail) return false;
    if (step == Step::kOpen) continue;
    bool done = false;
    if (!AfterValue(&done)) return false;
    if (done) break;
  }
  SkipWhitespace();
  return p_ == end_;
}

Parser::Step Parser::ParseValue() {
  SkipWhitespace();
  if (p_ == end_) return Step::kFail;
  switch (*p_) {
    case '{':
      return OpenObject();
    case '[':
      return OpenArray();
    case '"': {
      ++p_;
      std::string_view s;
      if (!ParseString(&value_scratch_, &s)) return Step::kFail;
      Place(s);
      return Step::kValue;
    }
    case 't':
      if (!ParseLiteral("true")) return Step::kFail;
      Place(true);
      return Step::kValue;
    case 'f':
      if (!ParseLiteral("false")) return Step::kFail;
      Place(false);
      return Step::kValue;
    case 'n':
      if (!ParseLiteral("null")) return Step::kFail;
      Place(nullptr);
      return Step::kValue;
    default:
      return ParseNumber() ? Step::kValue : Step::kFail;
  }
}

Parser::Step Parser::OpenArray() {
  if (static_cast<int>(stack_.size()) >= max_depth_) return Step::kFail;
  ArrayT* array = Place(Json::value_t::array)->get_ptr<ArrayT*>();
  ++p_;
  SkipWhitespace();
  if (p_ < end_ && *p_ == ']') {
    ++p_;
    return Step::kValue;
  }
  stack_.push_back(Frame{array, nullptr});
  return Step::kOpen;
}

Parser::Step Parser::OpenObject() {
  if (static_cast<int>(stack_.size()) >= max_depth_) return Step::kFail;
  ObjectT* object = Place(Json::value_t::object)->get_ptr<ObjectT*>();
  ++p_;
  SkipWhitespace();
  if (p_ < end_ && *p_ == '}') {
    ++p_;
    return Step::kValue;
  }
  stack_.push_back(Frame{nullptr, object});
  return ParseKey(object) ? Step::kOpen : Step::kFail;
}

// After a complete value: consumes the separators and closing brackets that
// follow, up to the next value to parse (and its key, in an object) or the
// end of the top-level value (`*done`).
bool Parser::AfterValue(bool* done) {
  while (!stack_.empty()) {
    SkipWhitespace();
    if (p_ == end_) return false;
    const Frame top = stack_.back();
    const char c = *p_++;
    if (c == ',') {
      if (top.array != nullptr) return true;
      SkipWhitespace();
      return ParseKey(top.object);
    }
    if (c != (top.array != nullptr ? ']' : '}')) return false;
    stack_.pop_back();
  }
  *done = true;
  return true;
}

// Parses `"key":` (p_ at the opening quote, or wherever one was expected)
// and remembers the key and its place for the member's value.
inline bool Parser::ParseKey(ObjectT* object) {
  if (p_ == end_ || *p_ != '"') return false;
  ++p_;
  if (!ParseString(&key_scratch_, &key_)) return false;
  // One descent finds both a duplicate and the insertion point; parsing a
  // scalar value leaves the object alone, so the hint stays valid.
  key_hint_ = object->lower_bound(key_);
  if (key_hint_ != object->end() && key_hint_->first == key_) return false;
  SkipWhitespace();
  if (p_ == end_ || *p_ != ':') return false;
  ++p_;
  return true;
}

// p_ just past the opening quote. Strings without escapes are returned as a
// view into the input; escaped ones are decoded into `scratch`.
inline bool Parser::ParseString(std::string* scratch, std::string_view* out) {
  const char* start = p_;
  while (true) {
    SkipPlainString();
    if (p_ == end_) return false;
    const unsigned char c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      *out = std::string_view(start, static_cast<size_t>(p_ - start));
      ++p_;
      return true;
    }
    if (c == '\\') return ParseEscapedString(start, scratch, out);
    if (c < 0x80) return false;  // Unescaped control character.
    const size_t n = Utf8Length(p_, end_);
    if (n == 0) return false;
    p_ += n;
  }
}

// p_ at the first backslash of the string that began at `start`.
bool Parser::ParseEscapedString(const char* start, std::string* scratch,
                                std::string_view* out) {
  scratch->assign(start, p_);
  while (true) {
    const char* run = p_;
    SkipPlainString();
    scratch->append(run, p_);
    if (p_ == end_) return false;
    const unsigned char c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      ++p_;
      *out = *scratch;
      return true;
    }
    if (c == '\\') {
      ++p_;
      if (!ParseEscape(scratch)) return false;
      continue;
    }
    if (c < 0x80) return false;
    const size_t n = Utf8Length(p_, end_);
    if (n == 0) return false;
    scratch->append(p_, n);
    p_ += n;
  }
}

// p_ just past a backslash; appends the escaped character to `out`.
bool Parser::ParseEscape(std::string* out) {
  if (p_ == end_) return false;
  const char c = *p_++;
  switch (c) {
    case '"': out->push_back('"'); return true;
    case '\\': out->push_back('\\'); return true;
    case '/': out->push_back('/'); return true;
    case 'b': out->push_back('\b'); return true;
    case 'f': out->push_back('\f'); return true;
    case 'n': out->push_back('\n'); return true;
    case 'r': out->push_back('\r'); return true;
    case 't': out->push_back('\t'); return true;
    case 'u': break;
    default: return false;
  }
  if (end_ - p_ < 4) return false;
  int cp = ReadHex4(p_);
  if (cp < 0 || (cp >= 0xDC00 && cp <= 0xDFFF)) return false;
  p_ += 4;
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    // A high surrogate counts only with a low one escaped right after it.
    if (end_ - p_ < 6 || p_[0] != '\\' || p_[1] != 'u') return false;
    const int low = ReadHex4(p_ + 2);
    if (low < 0xDC00 || low > 0xDFFF) return false;
    p_ += 6;
    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
  }
  AppendUtf8(static_cast<uint32_t>(cp), out);
  return true;
}

// RFC 8259 numbers, stored as nlohmann stores them (see the header).
bool Parser::ParseNumber() {
  const char* start = p_;
  const bool negative = *p_ == '-';
  if (negative) ++p_;
  if (p_ == end_ || !IsDigit(*p_)) return false;
  uint64_t magnitude = 0;
  bool overflow = false;
  if (*p_ == '0') {
    ++p_;  // No leading zeros: a digit after this ends the value.
  } else {
    while (p_ < end_ && IsDigit(*p_)) {
      const unsigned digit = static_cast<unsigned>(*p_ - '0');
      overflow |= __builtin_mul_overflow(magnitude, 10u, &magnitude);
      overflow |= __builtin_add_overflow(magnitude, digit, &magnitude);
      ++p_;
    }
  }
  if (p_ < end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E')) {
    return ParseFloat(start);
  }
  if (overflow) return ParseFloat(start);
  if (!negative) {
    Place(static_cast<Json::number_unsigned_t>(magnitude));
    return true;
  }
  constexpr uint64_t kMinMagnitude = uint64_t{1} << 63;  // -INT64_MIN
  if (magnitude > kMinMagnitude) return ParseFloat(start);
  Place(magnitude == kMinMagnitude
            ? std::numeric_limits<Json::number_integer_t>::min()
            : -static_cast<Json::number_integer_t>(magnitude));
  return true;
}

// The fraction and exponent (p_ after the integer part) and the conversion
// of everything from `start` to double.
bool Parser::ParseFloat(const char* start) {
  if (p_ < end_ && *p_ == '.') {
    ++p_;
    if (p_ == end_ || !IsDigit(*p_)) return false;
    while (p_ < end_ && IsDigit(*p_)) ++p_;
  }
  if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
    ++p_;
    if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
    if (p_ == end_ || !IsDigit(*p_)) return false;
    while (p_ < end_ && IsDigit(*p_)) ++p_;
  }
  // Locale-independent and correctly rounded, like glibc's strtod.
  double value = 0;
  const auto [ptr, ec] = std::from_chars(start, p_, value);
  if (ec == std::errc::result_out_of_range) {
    value = StrtodInCLocale(start, p_);
  } else if (ec != std::errc() || ptr != p_) {
    return false;
  }
  // Refused when the double is not the number written (see FitNumber).
  if (FitNumber(std::string_view(start, p_ - start), value) !=
      NumberFit::kExact) {
    return false;
  }
  Place(value);
  return true;
}

bool Parser::ParseLiteral(std::string_view word) {
  if (static_cast<size_t>(end_ - p_) < word.size() ||
      std::memcmp(p_, word.data(), word.size()) != 0) {
    return false;
  }
  p_ += word.size();
  return true;
}

}  // namespace

bool FastParseJson(absl::string_view text, int max_depth, nlohmann::json* out,
                   size_t* error_offset) {
  Parser parser(text, max_depth, out);
  if (parser.Parse()) return true;
  *error_offset = parser.offset();
  return false;
}

}  // namespace json_internal
}  // namespace toolgate
