// The block readers of the families that write JSON: Hermes, Mistral,
// Llama 3 JSON, Granite and DeepSeek V3 (grammars in docs/formats.md).
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/extract/formats/formats_internal.h"
#include "core/extract/formats/frame.h"
#include "core/json/utf8.h"
#include "core/repair/lexer.h"

namespace toolgate {
namespace extract {
namespace formats {
namespace {

constexpr absl::string_view kHermesClose = "</tool_call>";

Block Cut(std::string message) {
  return Fail(kTruncatedOutput, "", absl::StrCat("the output was cut off: ",
                                                 std::move(message)));
}

Block Malformed(size_t pos, absl::string_view what) {
  return Fail(kMalformedToolCall, "",
              absl::StrCat("at byte ", pos, ": expected ", what));
}

// `token` at `*pos` (then past it), or the block's error.
bool Take(absl::string_view text, size_t* pos, absl::string_view token,
          absl::string_view what, Block* error) {
  switch (ExpectAt(text, *pos, token)) {
    case Expect::kMatch:
      *pos += token.size();
      return true;
    case Expect::kCut:
      *error = Cut(absl::StrCat("in ", what));
      return false;
    case Expect::kNo:
      *error = Malformed(*pos, what);
      return false;
  }
  return false;
}

// A JSON array of call objects after the family's marker.
Block ReadArrayBlock(absl::string_view text, size_t begin,
                     absl::string_view marker, const CallShape& shape,
                     const ReadOptions& options) {
  const size_t p = SkipSpace(text, begin + marker.size());
  if (p == text.size()) return Cut(absl::StrCat("nothing after ", marker));
  if (text[p] != '[') {
    return Malformed(p, absl::StrCat("a JSON array of calls after ", marker));
  }
  const size_t end = JsonSpanEnd(text, p);
  if (end == kNpos) return Cut("the call array is never closed");
  if (ExtractionError e = NoMarkerWithin(text, p, end); !e.code.empty()) {
    return Fail(e.code, e.pointer, e.message);
  }
  JsonValue list = ParseJsonValue(text.substr(p, end - p), options, "");
  if (!list.error.code.empty()) return Fail(list.error.code, list.error.pointer,
                                            list.error.message);
  Block block;
  block.end = end;
  if (!list.value.is_array()) return Malformed(p, "a JSON array of calls");
  for (size_t i = 0; i < list.value.size(); ++i) {
    ExtractedCall call;
    ExtractionError error =
        ReadCallObject(list.value[i], shape, absl::StrCat("/", i), &call);
    if (!error.code.empty()) {
      error.call_index = static_cast<int>(i);
      block.error = std::move(error);
      block.calls.clear();
      return block;
    }
    call.repairs = list.repairs;
    block.calls.push_back(std::move(call));
  }
  return block;
}

// The end of a <tool_call> tag's content: "</tool_call>" outside
// double-quoted strings, as the UNSPECIFIED reader finds it.
size_t HermesCloseAt(absl::string_view text, size_t pos) {
  while (pos < text.size()) {
    if (text[pos] == '"') {
      pos = repair::StringEnd(text, pos);
      if (pos == kNpos) return kNpos;
      continue;
    }
    if (At(text, pos, kHermesClose)) return pos;
    ++pos;
  }
  return kNpos;
}

bool IsToolNameLine(absl::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7F) return false;
  }
  return FindInvalidUtf8(name) == absl::string_view::npos;
}

// A call object, {"name", "arguments" or "parameters", ...}, nested in
// `value` (its pointer below `value` in *pointer, built on the way out).
// vLLM's llama3_json parser runs the first JSON object at most two deep
// it finds anywhere in the text: an outer call whose arguments hold
// objects is never that one, a call object nested in them may be.
bool NestedCallAt(const Json& value, std::string* pointer) {
  if (value.is_object()) {
    if (value.contains("name") &&
        (value.contains("arguments") || value.contains("parameters"))) {
      return true;
    }
    for (const auto& member : value.items()) {
      if (NestedCallAt(member.value(), pointer)) {
        *pointer = absl::StrCat("/", EscapePointerToken(member.key()),
                                *pointer);
        return true;
      }
    }
  } else if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) {
      if (NestedCallAt(value[i], pointer)) {
        *pointer = absl::StrCat("/", i, *pointer);
        return true;
      }
    }
  }
  return false;
}

// SGLang's Llama 3.2 reader decodes the calls one after another and,
// where one does not decode (white space before an object, a "; "
// separator), resumes at the next '{"name":' in the text, nested ones
// included, and runs what it decodes there when its name is a string
// naming a tool. With two calls or more, a call object that does not open
// with '{"name":' (or that only repair makes JSON) is resumed into: a
// '{"name": "' inside it may be read as a call of its own. (One call is
// read whole; a call opening with '{"name":' is found at its start.)
constexpr absl::string_view kNameFirst = "{\"name\":";

ExtractionError NoInnerNameFirst(absl::string_view text, size_t begin,
                                 size_t end) {
  const absl::string_view calls = text.substr(0, end);
  size_t at = begin;
  while ((at = calls.find(kNameFirst, at + 1)) != kNpos) {
    const size_t value = SkipSpace(calls, at + kNameFirst.size());
    if (value < calls.size() && calls[value] == '"') break;
  }
  if (at == kNpos) return {};
  return Error(kAmbiguousOutput, "",
               absl::StrCat("'{\"name\":' at byte ", at,
                            " inside a call of several: a runtime resuming "
                            "there reads it as a call of its own"));
}

}  // namespace

Block ReadHermesBlock(absl::string_view text, size_t begin,
                      const ReadOptions& options) {
  Block block;
  size_t p = begin;
  for (int i = 0;; ++i) {
    const size_t content = p + kHermesOpen.size();
    const size_t close = HermesCloseAt(text, content);
    if (close == kNpos) return Cut("a <tool_call> tag is never closed");
    if (ExtractionError e = NoMarkerWithin(text, content, close);
        !e.code.empty()) {
      return Fail(e.code, e.pointer, e.message);
    }
    Candidate candidate;
    candidate.source = CallSource::kToolCallTag;
    candidate.json = text.substr(content, close - content);
    ExtractedCall call;
    ExtractionError error =
        ReadCandidate(candidate, options.policy, options.json, &call);
    if (!error.code.empty()) {
      error.pointer = absl::StrCat("/", i, error.pointer);
      error.call_index = i;
      block.calls.clear();
      block.error = std::move(error);
      return block;
    }
    block.calls.push_back(std::move(call));
    block.end = close + kHermesClose.size();
    p = SkipSpace(text, block.end);
    if (!At(text, p, kHermesOpen)) return block;
  }
}

Block ReadMistralBlock(absl::string_view text, size_t begin,
                       const ReadOptions& options) {
  CallShape shape;
  shape.id = true;
  return ReadArrayBlock(text, begin, kMistralOpen, shape, options);
}

Block ReadGraniteBlock(absl::string_view text, size_t begin,
                       const ReadOptions& options) {
  return ReadArrayBlock(text, begin, kGraniteOpen, CallShape(), options);
}

Block ReadLlamaBlock(absl::string_view text, size_t begin,
                     const ReadOptions& options) {
  Block block;
  size_t p = At(text, begin, kLlamaOpen) ? begin + kLlamaOpen.size() : begin;
  CallShape shape;
  shape.parameters = true;
  ExtractionError inner_name;  // The first, for two calls or more.
  for (int i = 0;; ++i) {
    p = SkipSpace(text, p);
    if (p == text.size()) {
      return Cut(i == 0 ? "nothing after <|python_tag|>"
                        : "nothing after a ';' (a dangling separator)");
    }
    if (text[p] != '{') return Malformed(p, "a JSON call object");
    const size_t end = JsonSpanEnd(text, p);
    if (end == kNpos) return Cut("a call object is never closed");
    if (ExtractionError e = NoMarkerWithin(text, p, end); !e.code.empty()) {
      return Fail(e.code, e.pointer, e.message);
    }
    const std::string pointer = absl::StrCat("/", i);
    JsonValue value = ParseJsonValue(text.substr(p, end - p), options, pointer);
    ExtractedCall call;
    ExtractionError error = value.error;
    if (error.code.empty()) {
      error = ReadCallObject(value.value, shape, pointer, &call);
    }
    if (std::string nested; error.code.empty() &&
        NestedCallAt(call.arguments, &nested)) {
      const bool parameters = value.value.contains("parameters");
      error = Error(kAmbiguousOutput,
                    absl::StrCat(pointer,
                                 parameters ? "/parameters" : "/arguments",
                                 nested),
                    "a call object nested in the arguments: a runtime "
                    "reading the first shallow JSON object in the text runs "
                    "it instead of this call");
    }
    if (!error.code.empty()) {
      error.call_index = i;
      block.calls.clear();
      block.error = std::move(error);
      return block;
    }
    if (inner_name.code.empty() &&
        (!At(text, p, kNameFirst) || !value.repairs.empty())) {
      inner_name = NoInnerNameFirst(text, p, end);
    }
    call.repairs = std::move(value.repairs);
    block.calls.push_back(std::move(call));
    block.end = end;
    p = SkipSpace(text, end);
    if (p == text.size() || text[p] != ';') break;
    ++p;
  }
  if (block.calls.size() > 1 && !inner_name.code.empty()) {
    block.calls.clear();
    block.error = std::move(inner_name);
  }
  return block;
}

Block ReadDeepSeekBlock(absl::string_view text, size_t begin,
                        const ReadOptions& options) {
  Block block;
  Block error;
  size_t p = begin + kDeepSeekCallsBegin.size();
  for (int i = 0;; ++i) {
    p = SkipSpace(text, p);
    switch (ExpectAt(text, p, kDeepSeekCallsEnd)) {
      case Expect::kMatch:
        block.end = p + kDeepSeekCallsEnd.size();
        return block;
      case Expect::kCut:
        return Cut("before the end of the calls");
      case Expect::kNo:
        break;
    }
    if (!Take(text, &p, kDeepSeekCallBegin, "the next call or the end of the "
              "calls", &error) ||
        !Take(text, &p, "function", "the call type \"function\"", &error) ||
        !Take(text, &p, kDeepSeekSep, "the separator after the type",
              &error)) {
      return error;
    }
    const size_t name_end = text.find('\n', p);
    if (name_end == kNpos) return Cut("in a call's name line");
    const absl::string_view name = text.substr(p, name_end - p);
    if (!IsToolNameLine(name)) {
      return Malformed(p, "a tool name (valid UTF-8, no spaces or control "
                          "characters) on the line after the separator");
    }
    p = name_end + 1;
    if (!Take(text, &p, "```json", "```json before the arguments", &error)) {
      return error;
    }
    p = SkipSpace(text, p);
    if (p == text.size()) return Cut("before a call's arguments");
    if (text[p] != '{') return Malformed(p, "the arguments: a JSON object");
    const size_t end = JsonSpanEnd(text, p);
    if (end == kNpos) return Cut("the arguments object is never closed");
    if (ExtractionError e = NoMarkerWithin(text, p, end); !e.code.empty()) {
      return Fail(e.code, e.pointer, e.message);
    }
    JsonValue args = ParseJsonValue(text.substr(p, end - p), options,
                                    absl::StrCat("/", i, "/arguments"));
    if (!args.error.code.empty()) {
      args.error.call_index = i;
      block.error = std::move(args.error);
      block.calls.clear();
      return block;
    }
    p = SkipSpace(text, end);
    if (!Take(text, &p, "```", "``` after the arguments", &error) ||
        !Take(text, &p, kDeepSeekCallEnd, "the end of the call", &error)) {
      return error;
    }
    ExtractedCall call;
    call.name = std::string(name);
    call.arguments = std::move(args.value);
    call.repairs = std::move(args.repairs);
    block.calls.push_back(std::move(call));
  }
}

}  // namespace formats
}  // namespace extract
}  // namespace toolgate
