#include "core/gate/unchecked_calls.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace toolgate {
namespace gate_internal {
namespace {

bool HasArgumentKey(const Json& object) {
  for (absl::string_view key : kArgumentKeys) {
    if (object.contains(std::string(key))) return true;
  }
  return false;
}

// A string from the output, for a message: JSON-quoted with non-ASCII
// escaped (a type "tool_use\u200b" must not look like "tool_use"), cut.
std::string Shown(const std::string& s) {
  std::string out = Json(s).dump(-1, ' ', /*ensure_ascii=*/true,
                                 Json::error_handler_t::replace);
  if (out.size() > 60) out = absl::StrCat(out.substr(0, 57), "...");
  return out;
}

ReadError Unchecked(std::string pointer, absl::string_view what) {
  std::string message = absl::StrCat(
      "native_json carries ", what, " at ",
      pointer.empty() ? std::string("the top level") : pointer,
      ": toolgate would not read or check it, yet a runtime could run it as a "
      "call; every call must be checkable, so the output is refused");
  return ReadError{"ambiguous_output", std::move(pointer), std::move(message)};
}

// The calls that reading a shape reads, by node, each with the member
// holding its arguments (the call's own data, not searched).
using CallsRead = absl::flat_hash_map<const Json*, absl::string_view>;

void AddOpenAICalls(const Json& tool_calls, CallsRead* out) {
  if (!tool_calls.is_array()) return;
  for (const Json& tc : tool_calls) {
    if (!tc.is_object()) continue;
    auto fn = tc.find("function");
    if (fn != tc.end() && fn->is_object()) out->emplace(&*fn, "arguments");
  }
}

CallsRead ReadBy(const Json& doc, NativeShape shape) {
  CallsRead read;
  if (shape == NativeShape::kOpenAIArray) {
    AddOpenAICalls(doc, &read);
  } else if (shape == NativeShape::kOpenAIMessage) {
    AddOpenAICalls(*doc.find("tool_calls"), &read);
  } else if (shape == NativeShape::kAnthropic) {
    for (const Json& block : *doc.find("content")) {
      if (!block.is_object()) continue;
      auto type = block.find("type");
      if (type != block.end() && *type == "tool_use") {
        read.emplace(&block, "input");
      }
    }
  } else if (shape == NativeShape::kMcp) {
    read.emplace(&doc, "arguments");
  }
  return read;
}

// Depth-first search for an object with a "name" and arguments that is not
// a call read, or a call read that carries a second arguments member.
class Walker {
 public:
  explicit Walker(const CallsRead& read) : read_(read) {}

  std::optional<ReadError> Walk(const Json& node) {
    if (node.is_array()) {
      for (size_t i = 0; i < node.size(); ++i) {
        path_.push_back(Token{{}, i, true});
        std::optional<ReadError> found = Walk(node[i]);
        path_.pop_back();
        if (found.has_value()) return found;
      }
      return std::nullopt;
    }
    if (!node.is_object()) return std::nullopt;
    absl::string_view own_arguments;
    if (auto it = read_.find(&node); it != read_.end()) {
      own_arguments = it->second;
      for (absl::string_view key : kArgumentKeys) {
        if (key != own_arguments && node.contains(std::string(key))) {
          return Unchecked(Pointer(key),
                           absl::StrCat("a second arguments member \"", key,
                                        "\" in a call"));
        }
      }
    } else if (node.contains("name") && HasArgumentKey(node)) {
      return Unchecked(Pointer(""),
                       "an object with a \"name\" and arguments, a call in a "
                       "shape toolgate does not read here");
    }
    for (const auto& [key, value] : node.get_ref<const Json::object_t&>()) {
      if (key == own_arguments) continue;
      path_.push_back(Token{key, 0, false});
      std::optional<ReadError> found = Walk(value);
      path_.pop_back();
      if (found.has_value()) return found;
    }
    return std::nullopt;
  }

 private:
  // A step down from the root: an array index, or a member's key (which
  // the document owns and outlives the walk).
  struct Token {
    absl::string_view key;
    size_t index;
    bool is_index;
  };

  // Escaped only here, when there is something to report: most walks find
  // nothing, and a string per step was a share of every call's time.
  std::string Pointer(absl::string_view last) const {
    std::string out;
    for (const Token& token : path_) {
      if (token.is_index) {
        absl::StrAppend(&out, "/", token.index);
      } else {
        absl::StrAppend(&out, "/", EscapePointerToken(token.key));
      }
    }
    if (!last.empty()) absl::StrAppend(&out, "/", EscapePointerToken(last));
    return out;
  }

  const CallsRead& read_;
  absl::InlinedVector<Token, 16> path_;  // Most outputs are shallow.
};

std::optional<ReadError> CheckText(const Json& text, std::string pointer,
                                   absl::string_view holder) {
  std::string what;
  if (!text.is_string() ||
      !TextLooksLikeCall(text.get_ref<const std::string&>(), &what)) {
    return std::nullopt;
  }
  return Unchecked(std::move(pointer), absl::StrCat(holder, " holding ", what));
}

// Content text and blocks. Anthropic blocks are read only in the
// Anthropic shape; elsewhere a tool_use block is a second shape.
std::optional<ReadError> CheckContent(const Json& doc, NativeShape shape) {
  auto content = doc.find("content");
  if (content == doc.end() || content->is_null()) return std::nullopt;
  if (content->is_string()) return CheckText(*content, "/content", "text");
  if (!content->is_array()) {
    return Unchecked("/content",
                     "content that is neither text, null nor an array");
  }
  const bool anthropic = shape == NativeShape::kAnthropic;
  for (size_t i = 0; i < content->size(); ++i) {
    const Json& block = (*content)[i];
    const std::string where = absl::StrCat("/content/", i);
    if (!block.is_object()) {
      return Unchecked(where, "a content block that is not an object");
    }
    auto type = block.find("type");
    if (type == block.end() || !type->is_string()) {
      if (anthropic) continue;  // ReadAnthropic: malformed_tool_call.
      return Unchecked(where, "a content block without a string \"type\"");
    }
    const std::string& t = type->get_ref<const std::string&>();
    if (t == "tool_use") {
      if (anthropic) continue;
      return Unchecked(where, "an Anthropic tool_use block");
    }
    if (!IsInertBlockType(t)) {
      return Unchecked(
          where, absl::StrCat("a content block of type ", Shown(t),
                              " (toolgate reads tool_use blocks and lets "
                              "text, thinking, redacted_thinking and refusal "
                              "pass)"));
    }
    if (t == "text") {
      auto text = block.find("text");
      if (text == block.end()) continue;
      if (auto e = CheckText(*text, where + "/text", "a text block")) return e;
    }
  }
  return std::nullopt;
}

}  // namespace

bool IsInertBlockType(absl::string_view type) {
  return type == "text" || type == "thinking" || type == "redacted_thinking" ||
         type == "refusal";
}

std::optional<ReadError> FindUncheckedCall(const Json& doc, NativeShape shape) {
  if (doc.is_object()) {
    auto legacy = doc.find("function_call");
    if (legacy != doc.end() && !legacy->is_null()) {
      return Unchecked("/function_call", "a legacy OpenAI function_call");
    }
    if (auto e = CheckContent(doc, shape)) return e;
  }
  const CallsRead read = ReadBy(doc, shape);
  return Walker(read).Walk(doc);
}

bool TextLooksLikeCall(absl::string_view text, std::string* what) {
  // Markers of the text formats runtimes parse calls from: Hermes, Qwen
  // and Granite tags, Mistral's [TOOL_CALLS], Llama's <|python_tag|> and
  // <function=...>, Claude's <function_calls><invoke>, DeepSeek's
  // "tool" + U+2581 tokens, ReAct's "Action Input".
  static constexpr absl::string_view kMarkers[] = {
      "tool_call", "tool_use",   "function_call",    "<function",
      "<invoke",   "python_tag", "tool\xe2\x96\x81", "action input"};
  const std::string lower = absl::AsciiStrToLower(text);
  for (absl::string_view marker : kMarkers) {
    if (absl::StrContains(lower, marker)) {
      *what = absl::StrCat("a tool-call marker (\"", marker, "\")");
      return true;
    }
  }
  const size_t n = text.size();
  for (size_t i = text.find('{'); i != absl::string_view::npos;
       i = text.find('{', i + 1)) {
    size_t j = i + 1;
    while (j < n && absl::ascii_isspace(static_cast<unsigned char>(text[j]))) {
      ++j;
    }
    const absl::string_view rest = text.substr(j);
    bool object = rest.empty() || rest[0] == '"' || rest[0] == '\'' ||
                  absl::StartsWith(rest, "\xe2\x80\x9c") ||  // Smart quotes.
                  absl::StartsWith(rest, "\xe2\x80\x98");
    if (!object && (absl::ascii_isalpha(static_cast<unsigned char>(rest[0])) ||
                    rest[0] == '_' || rest[0] == '$')) {
      size_t k = 0;
      while (k < rest.size() &&
             (absl::ascii_isalnum(static_cast<unsigned char>(rest[k])) ||
              rest[k] == '_' || rest[k] == '$')) {
        ++k;
      }
      while (k < rest.size() &&
             absl::ascii_isspace(static_cast<unsigned char>(rest[k]))) {
        ++k;
      }
      object = k == rest.size() || rest[k] == ':';
    }
    if (object) {
      *what = "a JSON object";
      return true;
    }
  }
  return false;
}

}  // namespace gate_internal
}  // namespace toolgate
