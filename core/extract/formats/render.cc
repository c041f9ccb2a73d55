#include "core/extract/formats/render.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/extract/formats/frame.h"
#include "core/extract/formats/pythonic_reader.h"

namespace toolgate {
namespace extract {
namespace {

using formats::IsIdentChar;
using formats::IsIdentStart;
using formats::IsPythonKeyword;

bool IsIdentifier(absl::string_view word) {
  if (word.empty() || !IsIdentStart(word[0]) || IsPythonKeyword(word)) {
    return false;
  }
  for (char c : word) {
    if (!IsIdentChar(c)) return false;
  }
  return true;
}

bool IsDottedName(absl::string_view name) {
  for (absl::string_view part : absl::StrSplit(name, '.')) {
    if (!IsIdentifier(part)) return false;
  }
  return true;
}

void AppendPythonString(const std::string& s, std::string* out) {
  out->push_back('\'');
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
      case '\\': out->append("\\\\"); break;
      case '\'': out->append("\\'"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default:
        if (u < 0x20) {
          char buf[5];
          std::snprintf(buf, sizeof(buf), "\\x%02x", u);
          out->append(buf);
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('\'');
}

void AppendPython(const Json& value, std::string* out) {
  switch (value.type()) {
    case Json::value_t::null: out->append("None"); return;
    case Json::value_t::boolean:
      out->append(value.get<bool>() ? "True" : "False");
      return;
    case Json::value_t::string:
      AppendPythonString(value.get_ref<const std::string&>(), out);
      return;
    case Json::value_t::array: {
      out->push_back('[');
      for (size_t i = 0; i < value.size(); ++i) {
        if (i > 0) out->append(", ");
        AppendPython(value[i], out);
      }
      out->push_back(']');
      return;
    }
    case Json::value_t::object: {
      out->push_back('{');
      bool first = true;
      for (const auto& member : value.items()) {
        if (!first) out->append(", ");
        first = false;
        AppendPythonString(member.key(), out);
        out->append(": ");
        AppendPython(member.value(), out);
      }
      out->push_back('}');
      return;
    }
    default:  // Numbers: JSON's shortest form is Python syntax too.
      out->append(CanonicalJson(value));
  }
}

absl::Status Unrenderable(absl::string_view what) {
  return absl::InvalidArgumentError(what);
}

absl::StatusOr<std::string> RenderPythonic(
    const std::vector<CallToRender>& calls) {
  std::string out = "[";
  for (size_t i = 0; i < calls.size(); ++i) {
    const CallToRender& c = calls[i];
    if (!IsDottedName(c.name)) return Unrenderable("not a dotted identifier");
    if (i > 0) out.append(", ");
    absl::StrAppend(&out, c.name, "(");
    bool first = true;
    for (const auto& member : c.arguments.items()) {
      if (!IsIdentifier(member.key()) || member.key() == "__debug__") {
        return Unrenderable("an argument name that is not an identifier");
      }
      if (!first) out.append(", ");
      first = false;
      absl::StrAppend(&out, member.key(), "=");
      AppendPython(member.value(), &out);
    }
    out.push_back(')');
  }
  out.push_back(']');
  return out;
}

Json CallObject(const CallToRender& c, absl::string_view args_key,
                bool with_id) {
  Json object = {{"name", c.name}, {std::string(args_key), c.arguments}};
  if (with_id && !c.id.empty()) object["id"] = c.id;
  return object;
}

std::string JsonList(const std::vector<CallToRender>& calls, bool with_id) {
  Json list = Json::array();
  for (const CallToRender& c : calls) {
    list.push_back(CallObject(c, "arguments", with_id));
  }
  return CanonicalJson(list);
}

absl::StatusOr<std::string> RenderDeepSeek(
    const std::vector<CallToRender>& calls) {
  std::string out(formats::kDeepSeekCallsBegin);
  for (size_t i = 0; i < calls.size(); ++i) {
    for (char c : calls[i].name) {
      if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7F) {
        return Unrenderable("a name with white space or control characters");
      }
    }
    if (calls[i].name.empty()) return Unrenderable("an empty name");
    if (i > 0) out.push_back('\n');
    absl::StrAppend(&out, formats::kDeepSeekCallBegin, "function",
                    formats::kDeepSeekSep, calls[i].name, "\n```json\n",
                    CanonicalJson(calls[i].arguments), "\n```",
                    formats::kDeepSeekCallEnd);
  }
  absl::StrAppend(&out, formats::kDeepSeekCallsEnd);
  return out;
}

}  // namespace

std::string RenderPythonLiteral(const Json& value) {
  std::string out;
  AppendPython(value, &out);
  return out;
}

absl::StatusOr<std::string> RenderCalls(
    TextFormat format, const std::vector<CallToRender>& calls) {
  switch (format) {
    case TextFormat::kHermes: {
      std::vector<std::string> tags;
      for (const CallToRender& c : calls) {
        tags.push_back(absl::StrCat(
            formats::kHermesOpen, "\n",
            CanonicalJson(CallObject(c, "arguments", false)), "\n</tool_call>"));
      }
      return absl::StrJoin(tags, "\n");
    }
    case TextFormat::kMistral:
      for (const CallToRender& c : calls) {
        if (!c.id.empty() && (c.id.size() != 9 ||
                              !std::all_of(c.id.begin(), c.id.end(), [](char x) {
                                return absl::ascii_isalnum(
                                    static_cast<unsigned char>(x));
                              }))) {
          return Unrenderable("a Mistral id is nine letters and digits");
        }
      }
      return absl::StrCat(formats::kMistralOpen, JsonList(calls, true));
    case TextFormat::kLlama3Json: {
      std::vector<std::string> objects;
      for (const CallToRender& c : calls) {
        objects.push_back(CanonicalJson(CallObject(c, "parameters", false)));
      }
      return absl::StrCat(formats::kLlamaOpen, absl::StrJoin(objects, "; "));
    }
    case TextFormat::kPythonic:
      return RenderPythonic(calls);
    case TextFormat::kGranite:
      return absl::StrCat(formats::kGraniteOpen, JsonList(calls, false));
    case TextFormat::kDeepSeekV3:
      return RenderDeepSeek(calls);
    default:
      return Unrenderable("not a declared text format");
  }
}

std::string SyntaxExample(TextFormat format, absl::string_view tool) {
  // The name may come from the output: never let ill-formed bytes throw.
  const std::string name = Json(std::string(tool)).dump(
      -1, ' ', false, Json::error_handler_t::replace);
  switch (format) {
    case TextFormat::kHermes:
      return absl::StrCat("<tool_call>{\"name\": ", name,
                          ", \"arguments\": {...}}</tool_call>");
    case TextFormat::kMistral:
      return absl::StrCat("[TOOL_CALLS][{\"name\": ", name,
                          ", \"arguments\": {...}}]");
    case TextFormat::kLlama3Json:
      return absl::StrCat("<|python_tag|>{\"name\": ", name,
                          ", \"parameters\": {...}}");
    case TextFormat::kPythonic:
      return absl::StrCat("[", tool, "(name=value, ...)]");
    case TextFormat::kGranite:
      return absl::StrCat("<|tool_call|>[{\"name\": ", name,
                          ", \"arguments\": {...}}]");
    case TextFormat::kDeepSeekV3:
      return absl::StrCat(formats::kDeepSeekCallsBegin,
                          formats::kDeepSeekCallBegin, "function",
                          formats::kDeepSeekSep, tool, "\n```json\n{...}\n```",
                          formats::kDeepSeekCallEnd,
                          formats::kDeepSeekCallsEnd);
    default:
      return "";
  }
}

}  // namespace extract
}  // namespace toolgate
