#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/gate/native_stop.h"
#include "core/gate/plain_native.h"
#include "core/gate/plain_scanner.h"
#include "core/gate/unchecked_calls.h"

namespace toolgate {
namespace gate_internal {
namespace {

struct PlainCall {
  Token id, type, name, arguments;
  bool has_id = false, has_type = false, has_function = false;
};

class OpenAIReader {
 public:
  OpenAIReader(absl::string_view text, int max_depth)
      : scan_(text, max_depth) {}

  // False when the text is not the plain shape (or not JSON at all).
  bool Read() {
    return scan_.Object(
               [this](absl::string_view key) { return TopMember(key); }) &&
           scan_.AtEnd() && !calls_.empty();
  }

  const PlainScanner& scan() const { return scan_; }
  const std::vector<PlainCall>& calls() const { return calls_; }
  const std::optional<Token>& content() const { return content_; }

 private:
  bool TopMember(absl::string_view key) {
    if (IsCallKey(key)) return false;
    if (std::optional<bool> read = ReadPlainStop(key, &scan_)) return *read;
    if (key == "tool_calls") {
      return scan_.Array([this] { return Call(); });
    }
    if (key == "content") {
      if (scan_.Peek('"')) {
        Token t;
        if (!scan_.String(&t)) return false;
        content_ = t;
        return true;
      }
      return scan_.Literal("null");
    }
    return scan_.InertValue();
  }

  bool Call() {
    calls_.emplace_back();
    if (!scan_.Object(
            [this](absl::string_view key) { return CallMember(key); })) {
      return false;
    }
    const PlainCall& call = calls_.back();
    return call.has_type && call.has_function;
  }

  bool CallMember(absl::string_view key) {
    PlainCall& call = calls_.back();
    if (key == "id") return call.has_id = scan_.String(&call.id);
    if (key == "type") return call.has_type = scan_.String(&call.type);
    if (key == "function") {
      // Both members present: a string_view read from the text is never
      // null, an unset one is.
      call.has_function = scan_.Object([this](absl::string_view k) {
        return FunctionMember(k);
      }) && call.name.raw.data() != nullptr &&
                          call.arguments.raw.data() != nullptr;
      return call.has_function;
    }
    return false;
  }

  bool FunctionMember(absl::string_view key) {
    PlainCall& call = calls_.back();
    if (key == "name") return scan_.String(&call.name);
    if (key == "arguments") return scan_.String(&call.arguments);
    return false;
  }

  PlainScanner scan_;
  std::vector<PlainCall> calls_;
  std::optional<Token> content_;
};

// Whether `key` (with its quotes) occurs: glibc's memmem, as the generic
// search stops at every quote of the text.
bool HasKey(absl::string_view text, absl::string_view quoted_key) {
  return memmem(text.data(), text.size(), quoted_key.data(),
                quoted_key.size()) != nullptr;
}

}  // namespace

std::optional<RawCalls> ReadPlainOpenAIMessage(absl::string_view text,
                                               const JsonLimits& limits) {
  const std::optional<OpenAIReader> reader =
      ReadPlain<OpenAIReader>(text, limits);
  if (!reader.has_value() || (reader->content().has_value() &&
                              !TextIsInert(*reader->content(), limits))) {
    return std::nullopt;
  }
  RawCalls out;
  out.calls.reserve(reader->calls().size());
  std::string scratch;
  absl::string_view type;
  for (const PlainCall& plain : reader->calls()) {
    RawCall call;
    call.source = "openai_tool_calls";
    std::string arguments;
    if ((plain.has_id && !Decode(plain.id, limits, &call.id)) ||
        !View(plain.type, limits, &scratch, &type) || type != "function" ||
        !Decode(plain.name, limits, &call.name) ||
        !Decode(plain.arguments, limits, &arguments)) {
      return std::nullopt;
    }
    SetArgumentsFromText(arguments, limits, &call);
    out.calls.push_back(std::move(call));
  }
  return out;
}

std::optional<RawCalls> ReadPlainNative(absl::string_view text,
                                        const JsonLimits& limits) {
  // Each shape is told apart by a key it must hold before any scanning.
  if (HasKey(text, "\"tool_calls\"")) {
    if (auto calls = ReadPlainOpenAIMessage(text, limits)) return calls;
  }
  if (HasKey(text, "\"tool_use\"")) {
    if (auto calls = ReadPlainAnthropicMessage(text, limits)) return calls;
  }
  if (HasKey(text, "\"arguments\"")) {
    if (auto calls = ReadPlainMcpParams(text, limits)) return calls;
  }
  return std::nullopt;
}

}  // namespace gate_internal
}  // namespace toolgate
