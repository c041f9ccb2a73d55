#include "core/gate/plain_openai.h"

#include <cstddef>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "core/gate/unchecked_calls.h"
#include "core/json/strict_json_scan_internal.h"

namespace toolgate {
namespace gate_internal {
namespace {

// Whether a top-level member names a call or its arguments: the general
// reader decides what those mean (a second shape, an unchecked call).
bool IsCallKey(absl::string_view key) {
  if (key == "name" || key == "function_call") return true;
  for (absl::string_view arguments : kArgumentKeys) {
    if (key == arguments) return true;
  }
  return false;
}

// Deepest nesting of the plain shape: message, tool_calls, call, function.
constexpr int kPlainDepth = 4;

// A string as written: its bytes between the quotes, escapes undecoded.
struct Token {
  absl::string_view raw;
  bool escaped = false;
};

struct PlainCall {
  Token id, type, name, arguments;
  bool has_id = false, has_type = false, has_function = false;
};

class PlainReader {
 public:
  explicit PlainReader(absl::string_view text)
      : p_(text.data()), end_(text.data() + text.size()) {}

  // False when the text is not the plain shape (or not JSON at all).
  bool Read() {
    if (!Object(&PlainReader::TopMember)) return false;
    SkipWhitespace();
    return p_ == end_ && !calls_.empty();
  }

  const std::vector<PlainCall>& calls() const { return calls_; }
  const std::optional<Token>& content() const { return content_; }
  // Escaped strings whose values nothing reads: their escapes must still
  // be strict JSON.
  const std::vector<Token>& unread_escaped() const { return unread_escaped_; }

 private:
  using MemberFn = bool (PlainReader::*)(absl::string_view key);

  void SkipWhitespace() {
    while (p_ < end_ &&
           (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) {
      ++p_;
    }
  }

  bool Take(char c) {
    SkipWhitespace();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }

  bool Peek(char c) {
    SkipWhitespace();
    return p_ < end_ && *p_ == c;
  }

  // An object whose members `member` reads, keys unescaped and distinct.
  bool Object(MemberFn member) {
    if (!Take('{')) return false;
    absl::InlinedVector<absl::string_view, 8> keys;
    if (Take('}')) return true;
    do {
      Token key;
      if (!String(&key) || key.escaped || !Take(':')) return false;
      for (absl::string_view seen : keys) {
        if (seen == key.raw) return false;
      }
      keys.push_back(key.raw);
      if (!(this->*member)(key.raw)) return false;
    } while (Take(','));
    return Take('}');
  }

  // A string: control characters and invalid UTF-8 refused; escapes are
  // only skipped here and checked by the strict parser when decoded.
  bool String(Token* out) {
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

  bool Literal(absl::string_view word) {
    SkipWhitespace();
    if (static_cast<size_t>(end_ - p_) < word.size() ||
        absl::string_view(p_, word.size()) != word) {
      return false;
    }
    p_ += word.size();
    return true;
  }

  // A string, null, true, false or [], whose value nothing reads; escaped
  // strings are kept to be checked.
  bool InertValue() {
    if (Peek('"')) {
      Token t;
      if (!String(&t)) return false;
      if (t.escaped) unread_escaped_.push_back(t);
      return true;
    }
    if (Peek('[')) return Take('[') && Take(']');
    return Literal("null") || Literal("true") || Literal("false");
  }

  bool TopMember(absl::string_view key) {
    if (IsCallKey(key)) return false;
    if (key == "tool_calls") return ToolCalls();
    if (key == "content") {
      if (Peek('"')) {
        Token t;
        if (!String(&t)) return false;
        content_ = t;
        return true;
      }
      return Literal("null");
    }
    return InertValue();
  }

  bool ToolCalls() {
    if (!Take('[')) return false;
    do {
      calls_.emplace_back();
      if (!Object(&PlainReader::CallMember)) return false;
      const PlainCall& call = calls_.back();
      if (!call.has_type || !call.has_function) return false;
    } while (Take(','));
    return Take(']');
  }

  bool CallMember(absl::string_view key) {
    PlainCall& call = calls_.back();
    if (key == "id") return call.has_id = String(&call.id);
    if (key == "type") return call.has_type = String(&call.type);
    if (key == "function") {
      // Both members present: a string_view read from the text is never
      // null, an unset one is.
      call.has_function = Object(&PlainReader::FunctionMember) &&
                          call.name.raw.data() != nullptr &&
                          call.arguments.raw.data() != nullptr;
      return call.has_function;
    }
    return false;
  }

  bool FunctionMember(absl::string_view key) {
    PlainCall& call = calls_.back();
    if (key == "name") return String(&call.name);
    if (key == "arguments") return String(&call.arguments);
    return false;
  }

  const char* p_;
  const char* const end_;
  std::vector<PlainCall> calls_;
  std::optional<Token> content_;
  std::vector<Token> unread_escaped_;
};

// The string a token stands for; false when its escapes are not strict
// JSON (the general reader then reports that).
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

// Whether "tool_calls" (with its quotes) occurs: glibc's memmem, as the
// generic search stops at every quote of the text.
bool HasToolCallsKey(absl::string_view text) {
  static constexpr absl::string_view kKey = "\"tool_calls\"";
  return memmem(text.data(), text.size(), kKey.data(), kKey.size()) != nullptr;
}

}  // namespace

std::optional<RawCalls> ReadPlainOpenAIMessage(absl::string_view text,
                                               const JsonLimits& limits) {
  // Other shapes (Anthropic, MCP) are told apart before any scanning.
  if (text.empty() || text.size() > limits.max_bytes ||
      limits.max_depth < kPlainDepth || !HasToolCallsKey(text)) {
    return std::nullopt;
  }
  PlainReader reader(text);
  if (!reader.Read()) return std::nullopt;
  std::string scratch;
  for (const Token& token : reader.unread_escaped()) {
    if (!Decode(token, limits, &scratch)) return std::nullopt;
  }
  if (reader.content().has_value()) {
    std::string what;
    if (!Decode(*reader.content(), limits, &scratch) ||
        TextLooksLikeCall(scratch, &what)) {
      return std::nullopt;
    }
  }
  RawCalls out;
  out.calls.reserve(reader.calls().size());
  std::string type;
  for (const PlainCall& plain : reader.calls()) {
    RawCall call;
    call.source = "openai_tool_calls";
    std::string arguments;
    if ((plain.has_id && !Decode(plain.id, limits, &call.id)) ||
        !Decode(plain.type, limits, &type) || type != "function" ||
        !Decode(plain.name, limits, &call.name) ||
        !Decode(plain.arguments, limits, &arguments)) {
      return std::nullopt;
    }
    SetArgumentsFromText(arguments, limits, &call);
    out.calls.push_back(std::move(call));
  }
  return out;
}

}  // namespace gate_internal
}  // namespace toolgate
