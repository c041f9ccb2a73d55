// Internal to core/gate: the bytes-level reading the plain native readers
// (plain_native.h) share.
//
// A plain reader reads one common shape of provider output in a single
// pass without building a tree. It may only answer when the general
// reader would answer the same, so everything here refuses (returns
// false) rather than guesses: a key with an escape, a repeated key,
// nesting deeper than the limits allow, a value it does not know to be
// inert. Strings are checked for control characters and UTF-8 as they
// are passed; their escapes are checked when decoded (Decode), and every
// escaped string a reader does not decode is kept so that it can be.
//
// Thread-safety: a PlainScanner is used by one thread; the functions are
// pure.
#ifndef TOOLGATE_CORE_GATE_PLAIN_SCANNER_H_
#define TOOLGATE_CORE_GATE_PLAIN_SCANNER_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"
#include "core/stream/stop_signal.h"

namespace toolgate {
namespace gate_internal {

// A string as written: its bytes between the quotes, escapes undecoded.
struct Token {
  absl::string_view raw;
  bool escaped = false;
};

// Whether a key names a call or its arguments ("name", "function_call" or
// an argument key of any format): the general reader decides what an
// object holding one means (a call, a second shape, an unchecked call).
bool IsCallKey(absl::string_view key);

// Whether a key below an output's top level carries a stop signal
// (stop_reason, finish_reason, finishReason): the general reader judges
// it (native_stop.h).
inline bool IsStopKey(absl::string_view key) {
  const std::optional<stream::StopSignal> signal =
      stream::StopSignalOfKey(key);
  return signal.has_value() && *signal != stream::StopSignal::kResponsesStatus;
}

// The string a token stands for; false when its escapes are not strict
// JSON (the general reader then reports that).
bool Decode(const Token& token, const JsonLimits& limits, std::string* out);

// The string a token stands for, as a view: its own bytes when it has no
// escape (no copy), else decoded into `*scratch`; false as Decode.
bool View(const Token& token, const JsonLimits& limits, std::string* scratch,
          absl::string_view* out);

// Whether a token's escapes, if any, are strict JSON.
bool EscapesValid(const Token& token, const JsonLimits& limits);

// Whether message text (OpenAI content, an Anthropic text block) is valid
// and does not look like a call (TextLooksLikeCall), which the general
// reader refuses.
bool TextIsInert(const Token& text, const JsonLimits& limits);

class PlainScanner {
 public:
  // `max_depth` as JsonLimits counts it: the top-level value is 1.
  PlainScanner(absl::string_view text, int max_depth)
      : p_(text.data()),
        end_(text.data() + text.size()),
        max_depth_(max_depth) {}

  // Whether only whitespace is left.
  bool AtEnd() {
    SkipWhitespace();
    return p_ == end_;
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

  // A string; control characters and invalid UTF-8 refused.
  bool String(Token* out);

  // The bare word `word` (null, true, false).
  bool Literal(absl::string_view word);

  // An object, each member read by `member(key)` after its colon; keys
  // unescaped and distinct.
  template <typename MemberFn>
  bool Object(MemberFn&& member) {
    if (!Take('{') || !Enter()) return false;
    absl::InlinedVector<absl::string_view, 8> keys;
    if (!Take('}')) {
      do {
        Token key;
        if (!String(&key) || key.escaped || !Take(':')) return false;
        for (absl::string_view seen : keys) {
          if (seen == key.raw) return false;
        }
        keys.push_back(key.raw);
        if (!member(key.raw)) return false;
      } while (Take(','));
      if (!Take('}')) return false;
    }
    --depth_;
    return true;
  }

  // A non-empty array, each element read by `element()`.
  template <typename ElementFn>
  bool Array(ElementFn&& element) {
    if (!Take('[') || !Enter()) return false;
    do {
      if (!element()) return false;
    } while (Take(','));
    if (!Take(']')) return false;
    --depth_;
    return true;
  }

  // A value whose meaning no reader needs and that the general reader
  // searches without finding a call or a stop signal in: a string, null,
  // true, false, [], an integer of at most 15 digits, or an object of such
  // values none of whose keys names a call or a stop signal.
  bool InertValue();

  // The bytes of the object that starts here, found by its brackets and
  // strings alone (the caller parses them strictly), and the depth it is
  // at (1 for the top level).
  bool ObjectSpan(absl::string_view* span, int* depth);

  // Whether the escaped strings InertValue passed are strict JSON.
  bool UnreadEscapesValid(const JsonLimits& limits) const;

 private:
  void SkipWhitespace() {
    while (p_ < end_ &&
           (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) {
      ++p_;
    }
  }

  bool Enter() { return ++depth_ <= max_depth_; }
  bool ShortInteger();

  const char* p_;
  const char* const end_;
  const int max_depth_;
  int depth_ = 0;
  std::vector<Token> unread_escaped_;
};

// A `Reader` (built from the text and the depth limit, with Read() and a
// scan() returning its PlainScanner) that has read all of `text`, with
// every escape strict; nullopt when the text is empty or over the size
// limit, or the reader refuses it.
template <typename Reader>
std::optional<Reader> ReadPlain(absl::string_view text,
                                const JsonLimits& limits) {
  if (text.empty() || text.size() > limits.max_bytes) return std::nullopt;
  std::optional<Reader> reader(std::in_place, text, limits.max_depth);
  if (!reader->Read() || !reader->scan().UnreadEscapesValid(limits)) {
    return std::nullopt;
  }
  return reader;
}

}  // namespace gate_internal
}  // namespace toolgate

#endif  // TOOLGATE_CORE_GATE_PLAIN_SCANNER_H_
