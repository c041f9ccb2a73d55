// The Anthropic and MCP plain readers (plain_native.h).
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

// An object of arguments, found by ObjectSpan at `depth`, parsed strictly
// with the nesting the whole output leaves it; false on any error (the
// general reader reports it where it is in the output).
bool ParseArgumentsAt(absl::string_view span, int depth,
                      const JsonLimits& limits, RawCall* call) {
  JsonLimits left = limits;
  left.max_depth = limits.max_depth - (depth - 1);
  if (left.max_depth < 1) return false;
  absl::StatusOr<Json> args = ParseStrictJson(span, left);
  if (!args.ok() || !args->is_object()) return false;
  call->arguments = *std::move(args);
  return true;
}

struct Block {
  std::optional<Token> type, id, name, text;
  absl::string_view input;  // Empty when absent.
  int input_depth = 0;
};

class AnthropicReader {
 public:
  AnthropicReader(absl::string_view text, int max_depth)
      : scan_(text, max_depth) {}

  bool Read() {
    return scan_.Object(
               [this](absl::string_view key) { return TopMember(key); }) &&
           scan_.AtEnd() && !blocks_.empty();
  }

  const PlainScanner& scan() const { return scan_; }
  const std::vector<Block>& blocks() const { return blocks_; }

 private:
  bool TopMember(absl::string_view key) {
    if (IsCallKey(key) || key == "tool_calls") return false;
    if (std::optional<bool> read = ReadPlainStop(key, &scan_)) return *read;
    if (key == "content") return scan_.Array([this] { return ReadBlock(); });
    return scan_.InertValue();
  }

  bool ReadBlock() {
    blocks_.emplace_back();
    return scan_.Object([this](absl::string_view key) {
      return BlockMember(key);
    }) && blocks_.back().type.has_value();
  }

  bool StringInto(std::optional<Token>* out) {
    out->emplace();
    return scan_.String(&**out);
  }

  bool BlockMember(absl::string_view key) {
    Block& b = blocks_.back();
    if (key == "type") return StringInto(&b.type);
    if (key == "id") return StringInto(&b.id);
    if (key == "name") return StringInto(&b.name);
    if (key == "text") return StringInto(&b.text);
    if (key == "input") return scan_.ObjectSpan(&b.input, &b.input_depth);
    return !IsCallKey(key) && !IsStopKey(key) && scan_.InertValue();
  }

  PlainScanner scan_;
  std::vector<Block> blocks_;
};

// A block that is not a call: one the general reader lets pass (text,
// thinking, redacted_thinking, refusal) with no name or input, and text
// that does not look like a call.
bool InertBlock(const Block& b, absl::string_view type,
                const JsonLimits& limits) {
  if (!IsInertBlockType(type) || b.name.has_value() || !b.input.empty() ||
      (b.id.has_value() && !EscapesValid(*b.id, limits))) {
    return false;
  }
  if (!b.text.has_value()) return true;
  return type == "text" ? TextIsInert(*b.text, limits)
                        : EscapesValid(*b.text, limits);
}

// A tool_use block as ReadAnthropic reads it, when it reads it cleanly.
bool ToolUse(const Block& b, const JsonLimits& limits, RawCall* call) {
  call->source = "anthropic_tool_use";
  return b.name.has_value() && !b.input.empty() &&
         (!b.text.has_value() || EscapesValid(*b.text, limits)) &&
         (!b.id.has_value() || Decode(*b.id, limits, &call->id)) &&
         Decode(*b.name, limits, &call->name) &&
         ParseArgumentsAt(b.input, b.input_depth, limits, call);
}

class McpReader {
 public:
  McpReader(absl::string_view text, int max_depth) : scan_(text, max_depth) {}

  bool Read() {
    return scan_.Object(
               [this](absl::string_view key) { return TopMember(key); }) &&
           scan_.AtEnd() && name_.has_value() && !arguments_.empty();
  }

  const PlainScanner& scan() const { return scan_; }
  const Token& name() const { return *name_; }
  absl::string_view arguments() const { return arguments_; }
  int arguments_depth() const { return arguments_depth_; }

 private:
  bool TopMember(absl::string_view key) {
    if (key == "name") {
      name_.emplace();
      return scan_.String(&*name_);
    }
    if (key == "arguments") {
      return scan_.ObjectSpan(&arguments_, &arguments_depth_);
    }
    if (IsCallKey(key) || key == "content" || key == "tool_calls") {
      return false;
    }
    if (std::optional<bool> read = ReadPlainStop(key, &scan_)) return *read;
    return scan_.InertValue();
  }

  PlainScanner scan_;
  std::optional<Token> name_;
  absl::string_view arguments_;
  int arguments_depth_ = 0;
};

}  // namespace

std::optional<RawCalls> ReadPlainAnthropicMessage(absl::string_view text,
                                                  const JsonLimits& limits) {
  const std::optional<AnthropicReader> reader =
      ReadPlain<AnthropicReader>(text, limits);
  if (!reader.has_value()) return std::nullopt;
  RawCalls out;
  std::string scratch;
  absl::string_view type;
  for (const Block& b : reader->blocks()) {
    if (!View(*b.type, limits, &scratch, &type)) return std::nullopt;
    if (type != "tool_use") {
      if (!InertBlock(b, type, limits)) return std::nullopt;
      continue;
    }
    RawCall call;
    if (!ToolUse(b, limits, &call)) return std::nullopt;
    out.calls.push_back(std::move(call));
  }
  if (out.calls.empty()) return std::nullopt;
  return out;
}

std::optional<RawCalls> ReadPlainMcpParams(absl::string_view text,
                                           const JsonLimits& limits) {
  const std::optional<McpReader> reader = ReadPlain<McpReader>(text, limits);
  RawCall call;
  call.source = "mcp_call";
  if (!reader.has_value() || !Decode(reader->name(), limits, &call.name) ||
      !ParseArgumentsAt(reader->arguments(), reader->arguments_depth(), limits,
                        &call)) {
    return std::nullopt;
  }
  RawCalls out;
  out.calls.push_back(std::move(call));
  return out;
}

}  // namespace gate_internal
}  // namespace toolgate
