#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/gate/calls.h"
#include "core/gate/native_stop.h"
#include "core/gate/plain_native.h"
#include "core/gate/unchecked_calls.h"

namespace toolgate {
namespace {

using gate_internal::NativeShape;

ReadError Error(absl::string_view code, std::string pointer,
                std::string message) {
  return ReadError{std::string(code), std::move(pointer), std::move(message)};
}

// A string member, or an error naming where it should have been. `out`
// points into `obj`.
bool StringField(const Json& obj, const char* key, const std::string& where,
                 bool required, absl::string_view* out, ReadError* err) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) {
      *err = Error("malformed_tool_call", where,
                   absl::StrCat("missing \"", key, "\""));
    }
    return !required;
  }
  if (!it->is_string()) {
    *err = Error("malformed_tool_call", absl::StrCat(where, "/", key),
                 absl::StrCat("\"", key, "\" must be a string"));
    return false;
  }
  *out = it->get_ref<const std::string&>();
  return true;
}

bool StringField(const Json& obj, const char* key, const std::string& where,
                 bool required, std::string* out, ReadError* err) {
  absl::string_view value;
  if (!StringField(obj, key, where, required, &value, err)) return false;
  out->assign(value.data(), value.size());
  return true;
}

// Takes the arguments out of the parsed document: a copy of the tree was a
// tenth of a native call's work.
void SetArguments(Json&& value, const std::string& where, RawCall* call) {
  if (!value.is_object()) {
    call->error = Error("arguments_not_object", where,
                        absl::StrCat("arguments must be a JSON object, got ",
                                     JsonTypeName(value)));
    return;
  }
  call->arguments = std::move(value);
}

RawCall ReadOpenAICall(const Json& tc, const std::string& where,
                       const JsonLimits& limits) {
  RawCall call;
  call.source = "openai_tool_calls";
  absl::string_view type;
  const Json* fn = nullptr;
  if (!tc.is_object()) {
    call.error =
        Error("malformed_tool_call", where, "a tool call is an object");
  } else if (!StringField(tc, "id", where, false, &call.id, &call.error) ||
             !StringField(tc, "type", where, true, &type, &call.error)) {
  } else if (type != "function") {
    call.error = Error("malformed_tool_call", where + "/type",
                       "type must be \"function\"");
  } else if (auto it = tc.find("function");
             it == tc.end() || !it->is_object()) {
    call.error = Error("malformed_tool_call", where + "/function",
                       "\"function\" must be an object");
  } else {
    fn = &*it;
  }
  if (fn == nullptr) return call;
  const std::string fwhere = where + "/function";
  absl::string_view text;
  if (!StringField(*fn, "name", fwhere, true, &call.name, &call.error) ||
      !StringField(*fn, "arguments", fwhere, true, &text, &call.error)) {
    return call;
  }
  gate_internal::SetArgumentsFromText(text, limits, &call);
  return call;
}

RawCalls ReadOpenAI(const Json& tool_calls, const std::string& where,
                    const JsonLimits& limits) {
  RawCalls out;
  if (!tool_calls.is_array()) {
    out.error =
        Error("malformed_tool_call", where, "tool_calls must be an array");
    return out;
  }
  for (size_t i = 0; i < tool_calls.size(); ++i) {
    out.calls.push_back(
        ReadOpenAICall(tool_calls[i], absl::StrCat(where, "/", i), limits));
  }
  return out;
}

RawCalls ReadAnthropic(Json& content) {
  RawCalls out;
  for (size_t i = 0; i < content.size(); ++i) {
    Json& block = content[i];
    if (!block.is_object()) continue;
    auto type = block.find("type");
    if (type == block.end() || !type->is_string()) {
      out.calls.push_back(
          RawCall{"",
                  "",
                  "anthropic_tool_use",
                  Json(),
                  {},
                  1,
                  Error("malformed_tool_call", absl::StrCat("/content/", i),
                        "a content block needs a string \"type\"")});
      continue;
    }
    if (type->get_ref<const std::string&>() != "tool_use") continue;
    const std::string where = absl::StrCat("/content/", i);
    RawCall call;
    call.source = "anthropic_tool_use";
    if (StringField(block, "id", where, false, &call.id, &call.error) &&
        StringField(block, "name", where, true, &call.name, &call.error)) {
      auto input = block.find("input");
      if (input == block.end()) {
        call.error = Error("missing_arguments", where, "tool_use has no input");
      } else {
        SetArguments(std::move(*input), "", &call);
      }
    }
    out.calls.push_back(std::move(call));
  }
  return out;
}

RawCalls ReadMcp(Json& params) {
  RawCalls out;
  RawCall call;
  call.source = "mcp_call";
  if (StringField(params, "name", "", true, &call.name, &call.error)) {
    auto args = params.find("arguments");
    if (args == params.end()) {
      call.error = Error("missing_arguments", "",
                         "tools/call params carry no arguments object");
    } else {
      SetArguments(std::move(*args), "", &call);
    }
  }
  out.calls.push_back(std::move(call));
  return out;
}

// Which shape the output has. MCP params beside tool_calls or a content
// array are two shapes at once; subtler second shapes (a tool_use block
// beside tool_calls, a legacy function_call, call text in the content)
// are FindUncheckedCall's.
NativeShape DetectShape(const Json& doc) {
  if (doc.is_array()) return NativeShape::kOpenAIArray;
  if (!doc.is_object()) return NativeShape::kNone;
  auto content = doc.find("content");
  const bool openai = doc.contains("tool_calls");
  const bool anthropic = content != doc.end() && content->is_array();
  const bool mcp = doc.contains("name") || doc.contains("arguments");
  if (mcp && (openai || anthropic)) return NativeShape::kAmbiguous;
  if (openai) return NativeShape::kOpenAIMessage;
  if (anthropic) return NativeShape::kAnthropic;
  if (mcp) return NativeShape::kMcp;
  return NativeShape::kNone;
}

}  // namespace

namespace gate_internal {

void SetArgumentsFromText(absl::string_view text, const JsonLimits& limits,
                          RawCall* call) {
  absl::StatusOr<Json> args = ParseStrictJson(text, limits);
  if (!args.ok()) {
    std::string code = JsonErrorCode(args.status());
    if (code == kEmptyInput) code = "empty_arguments";
    call->error = Error(code, JsonErrorPointer(args.status()),
                        absl::StrCat("arguments string is not strict JSON: ",
                                     args.status().message()));
    return;
  }
  SetArguments(*std::move(args), "", call);
}

RawCalls ReadNativeCallsGeneral(absl::string_view native_json,
                                const JsonLimits& limits) {
  RawCalls out;
  absl::StatusOr<Json> doc = ParseStrictJson(native_json, limits);
  if (!doc.ok()) {
    out.error =
        Error(JsonErrorCode(doc.status()), JsonErrorPointer(doc.status()),
              absl::StrCat("native_json is not strict JSON: ",
                           doc.status().message()));
    return out;
  }
  // The provider's stop signal first, as a stream is refused before any
  // of its calls is read.
  if (std::optional<ReadError> stopped = gate_internal::FindStopRefusal(*doc)) {
    out.error = *std::move(stopped);
    return out;
  }
  const NativeShape shape = DetectShape(*doc);
  if (shape == NativeShape::kAmbiguous) {
    out.error = Error("ambiguous_output", "",
                      "native_json mixes shapes (OpenAI tool_calls, Anthropic "
                      "tool_use blocks, MCP params): every call must be "
                      "checkable, so mixed output is refused");
    return out;
  }
  if (shape == NativeShape::kNone) {
    out.error = Error("unrecognized_output", "",
                      "native_json is not an OpenAI message or tool_calls "
                      "array, an Anthropic message, or MCP tools/call params");
    return out;
  }
  if (std::optional<ReadError> unchecked =
          gate_internal::FindUncheckedCall(*doc, shape)) {
    out.error = *std::move(unchecked);
    return out;
  }
  if (shape == NativeShape::kOpenAIArray) {
    out = ReadOpenAI(*doc, "", limits);
  } else if (shape == NativeShape::kOpenAIMessage) {
    const Json& tc = (*doc)["tool_calls"];
    if (!tc.is_null()) out = ReadOpenAI(tc, "/tool_calls", limits);
  } else if (shape == NativeShape::kAnthropic) {
    out = ReadAnthropic((*doc)["content"]);
  } else {
    out = ReadMcp(*doc);
  }
  if (out.error.ok() && out.calls.empty()) {
    out.error = Error("no_tool_call", "", "the output contains no tool call");
  }
  return out;
}

}  // namespace gate_internal

RawCalls ReadNativeCalls(absl::string_view native_json,
                         const JsonLimits& limits) {
  if (std::optional<RawCalls> plain =
          gate_internal::ReadPlainNative(native_json, limits)) {
    return *std::move(plain);
  }
  return gate_internal::ReadNativeCallsGeneral(native_json, limits);
}

}  // namespace toolgate
