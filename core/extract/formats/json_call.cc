// The JSON parts the JSON families share: a value read under the repair
// policy, and a call object's shape.
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/extract/formats/frame.h"

namespace toolgate {
namespace extract {
namespace formats {
namespace {

// Mistral's tokenizer writes (and checks) call ids of nine ASCII letters
// and digits.
bool IsMistralId(const std::string& id) {
  if (id.size() != 9) return false;
  for (char c : id) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

ExtractionError NotACall(const std::string& pointer, std::string message) {
  return Error(kNotAToolCall, pointer, std::move(message));
}

}  // namespace

JsonValue ParseJsonValue(absl::string_view json, const ReadOptions& options,
                         absl::string_view pointer_prefix) {
  JsonValue out;
  repair::ParsedJson parsed = repair::ParseJson(json, options.policy,
                                                options.json);
  if (!parsed.ok()) {
    out.error = Error(MapJsonCode(parsed.code),
                      absl::StrCat(pointer_prefix, parsed.pointer),
                      std::move(parsed.message));
    return out;
  }
  out.value = std::move(parsed.value);
  out.repairs = std::move(parsed.repairs);
  return out;
}

ExtractionError ReadCallObject(Json& value, const CallShape& shape,
                               const std::string& pointer,
                               ExtractedCall* call) {
  const char* args_key = shape.parameters ? "parameters" : "arguments";
  if (!value.is_object()) {
    return NotACall(pointer, absl::StrCat("expected a call object {\"name\", \"",
                                          args_key, "\"}, found ",
                                          JsonTypeName(value)));
  }
  for (const auto& member : value.items()) {
    const std::string& key = member.key();
    const bool known = key == "name" || key == "arguments" ||
                       (shape.parameters && key == "parameters") ||
                       (shape.id && key == "id");
    if (!known) {
      return NotACall(absl::StrCat(pointer, "/", EscapePointerToken(key)),
                      absl::StrCat("unexpected member \"", key,
                                   "\" in a call object"));
    }
  }
  const auto name = value.find("name");
  if (name == value.end() || !name->is_string() ||
      name->get_ref<const std::string&>().empty()) {
    return NotACall(pointer + "/name",
                    "a call needs \"name\": a non-empty string");
  }
  auto args = value.find("arguments");
  if (shape.parameters) {
    const auto parameters = value.find("parameters");
    if (parameters != value.end() && args != value.end()) {
      return NotACall(pointer + "/arguments",
                      "a call has \"parameters\" or \"arguments\", not both");
    }
    if (parameters != value.end()) args = parameters;
  }
  if (args == value.end()) {
    return NotACall(absl::StrCat(pointer, "/", args_key),
                    absl::StrCat("a call needs \"", args_key,
                                 "\" (use {} for none)"));
  }
  if (!args->is_object()) {
    return NotACall(absl::StrCat(pointer, "/", args.key()),
                    absl::StrCat("\"", args.key(),
                                 "\" must be an object, found ",
                                 JsonTypeName(*args)));
  }
  if (shape.id) {
    const auto id = value.find("id");
    if (id != value.end()) {
      if (!id->is_string() || !IsMistralId(id->get_ref<const std::string&>())) {
        return NotACall(pointer + "/id",
                        "a Mistral call id is nine ASCII letters and digits");
      }
      call->id = id->get<std::string>();
    }
  }
  call->name = std::move(name->get_ref<std::string&>());
  call->arguments = std::move(*args);
  return {};
}

}  // namespace formats
}  // namespace extract
}  // namespace toolgate
