#include "core/gate/plain_scanner.h"

#include <cstddef>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "core/gate/unchecked_calls.h"
#include "core/json/strict_json_scan_internal.h"

namespace toolgate {
namespace gate_internal {

bool IsCallKey(absl::string_view key) {
  if (key == "name" || key == "function_call") return true;
  for (absl::string_view arguments : kArgumentKeys) {
    if (key == arguments) return true;
  }
  return false;
}

bool Decode(const Token& token, const JsonLimits& limits, std::string* out) {
  if (!token.escaped) {
    out->assign(token.raw.data(), token.raw.size());
    return true;
  }
  // The token with its quotes, read by the strict parser.
  const absl::string_view quoted(token.raw.data() - 1, token.raw.size() + 2);
  absl::StatusOr<Json> value = ParseStrictJson(quoted, limits);
  if (!value.ok() || !value->is_string()) return false;
  *out = std::move(value->get_ref<std::string&>());
  return true;
}

bool View(const Token& token, const JsonLimits& limits, std::string* scratch,
          absl::string_view* out) {
  if (!token.escaped) {
    *out = token.raw;
    return true;
  }
  if (!Decode(token, limits, scratch)) return false;
  *out = *scratch;
  return true;
}

bool EscapesValid(const Token& token, const JsonLimits& limits) {
  std::string unused;
  return !token.escaped || Decode(token, limits, &unused);
}

bool TextIsInert(const Token& text, const JsonLimits& limits) {
  std::string decoded, what;
  if (text.escaped && !Decode(text, limits, &decoded)) return false;
  const absl::string_view value =
      text.escaped ? absl::string_view(decoded) : text.raw;
  return !TextLooksLikeCall(value, &what);
}

bool PlainScanner::UnreadEscapesValid(const JsonLimits& limits) const {
  for (const Token& token : unread_escaped_) {
    if (!EscapesValid(token, limits)) return false;
  }
  return true;
}

bool PlainScanner::String(Token* out) {
  if (!Take('"')) return false;
  const char* begin = p_;
  while (p_ < end_) {
    p_ = json_internal::SkipPlainStringBytes(p_, end_);
    if (p_ == end_) break;
    const unsigned char c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      out->raw = absl::string_view(begin, p_ - begin);
      ++p_;
      return true;
    }
    if (c == '\\') {
      if (end_ - p_ < 2) return false;
      out->escaped = true;
      p_ += 2;
    } else if (c < 0x20) {
      return false;
    } else {
      const size_t n = json_internal::Utf8Length(p_, end_);
      if (n == 0) return false;
      p_ += n;
    }
  }
  return false;
}

bool PlainScanner::Literal(absl::string_view word) {
  SkipWhitespace();
  if (static_cast<size_t>(end_ - p_) < word.size() ||
      absl::string_view(p_, word.size()) != word) {
    return false;
  }
  p_ += word.size();
  return true;
}

// -?(0|[1-9][0-9]{0,14}): a number the strict parser always keeps,
// exactly. A fraction or exponent after it is not the delimiter the
// caller takes next, so the value is refused.
bool PlainScanner::ShortInteger() {
  const char* p = p_;
  if (p < end_ && *p == '-') ++p;
  const char* digits = p;
  while (p < end_ && absl::ascii_isdigit(static_cast<unsigned char>(*p))) ++p;
  const ptrdiff_t n = p - digits;
  if (n == 0 || n > 15 || (n > 1 && *digits == '0')) return false;
  p_ = p;
  return true;
}

bool PlainScanner::InertValue() {
  SkipWhitespace();
  if (p_ == end_) return false;
  switch (*p_) {
    case '"': {
      Token t;
      if (!String(&t)) return false;
      if (t.escaped) unread_escaped_.push_back(t);
      return true;
    }
    case '[':
      if (!Take('[') || !Enter() || !Take(']')) return false;
      --depth_;
      return true;
    case '{':
      return Object([this](absl::string_view key) {
        return !IsCallKey(key) && !IsStopKey(key) && InertValue();
      });
    case 'n':
      return Literal("null");
    case 't':
      return Literal("true");
    case 'f':
      return Literal("false");
    default:
      return ShortInteger();
  }
}

bool PlainScanner::ObjectSpan(absl::string_view* span, int* depth) {
  if (!Peek('{')) return false;
  *depth = depth_ + 1;
  const char* begin = p_;
  int open = 0;
  while (p_ < end_) {
    const char c = *p_++;
    if (c == '{' || c == '[') {
      ++open;
    } else if (c == '}' || c == ']') {
      if (--open == 0) {
        *span = absl::string_view(begin, p_ - begin);
        return true;
      }
    } else if (c == '"') {
      while (true) {
        p_ = json_internal::SkipPlainStringBytes(p_, end_);
        if (p_ == end_) return false;
        if (*p_ == '"') break;
        if (*p_ != '\\') {
          ++p_;  // A control or non-ASCII byte: the strict parse judges it.
        } else if (end_ - p_ < 2) {
          return false;
        } else {
          p_ += 2;
        }
      }
      ++p_;
    }
  }
  return false;
}

}  // namespace gate_internal
}  // namespace toolgate
