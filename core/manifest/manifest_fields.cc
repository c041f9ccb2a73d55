#include "core/manifest/manifest_fields.h"

#include <optional>

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/manifest/manifest_policy.h"

namespace toolgate {
namespace manifest_internal {

namespace {

bool IsSafeToolNameByte(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         c == '-' || c == '.' || c == '/';
}

// "U+XXXX" for the character starting at byte `at` of `s` (a byte of
// invalid UTF-8 cannot reach here: strict JSON checked it).
std::string CodePointAt(absl::string_view s, size_t at) {
  const auto b = [&](size_t k) {
    return at + k < s.size() ? static_cast<unsigned char>(s[at + k]) : 0u;
  };
  uint32_t cp = b(0);
  if (cp >= 0xF0) {
    cp = ((cp & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) |
         (b(3) & 0x3F);
  } else if (cp >= 0xE0) {
    cp = ((cp & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
  } else if (cp >= 0xC0) {
    cp = ((cp & 0x1F) << 6) | (b(1) & 0x3F);
  }
  return absl::StrCat("U+", absl::AsciiStrToUpper(
                                absl::StrCat(absl::Hex(cp, absl::kZeroPad4))));
}

}  // namespace

size_t FindUnsafeToolNameByte(absl::string_view name) {
  for (size_t i = 0; i < name.size(); ++i) {
    if (!IsSafeToolNameByte(name[i])) return i;
  }
  return absl::string_view::npos;
}

std::string VisibleToolName(absl::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size();) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c > 0x20 && c < 0x7F) {
      out.push_back(name[i++]);
      continue;
    }
    absl::StrAppend(&out, "<", CodePointAt(name, i), ">");
    ++i;
    while (i < name.size() && (name[i] & 0xC0) == 0x80) ++i;
  }
  return out;
}

std::string LookAlikeKey(absl::string_view name) {
  std::string key;
  key.reserve(name.size());
  for (char c : name) {
    switch (absl::ascii_tolower(static_cast<unsigned char>(c))) {
      case '0':
        key += 'o';
        break;
      case '1':
      case 'i':
        key += 'l';
        break;
      case 'm':
        key += "rn";
        break;
      case 'w':
        key += "vv";
        break;
      default:
        key += absl::ascii_tolower(static_cast<unsigned char>(c));
    }
  }
  return key;
}

absl::Status Refuse(absl::string_view pointer, absl::string_view message) {
  return absl::InvalidArgumentError(
      pointer.empty() ? absl::StrCat("manifest: ", message)
                      : absl::StrCat("manifest at ", pointer, ": ", message));
}

absl::Status FieldReader::Fail(absl::string_view sub_pointer,
                               absl::string_view message) const {
  const std::string where = absl::StrCat(pointer_, sub_pointer);
  if (tool_.empty()) return Refuse(where, message);
  return Refuse(where, absl::StrCat("tool \"", tool_, "\": ", message));
}

absl::Status FieldReader::Find(absl::string_view key, bool required,
                               const Json** out) const {
  *out = nullptr;
  if (!value_.is_object()) return Fail("", "expected an object");
  auto it = value_.find(std::string(key));
  if (it == value_.end()) {
    if (required) {
      return Fail("", absl::StrCat("missing required field \"", key, "\""));
    }
    return absl::OkStatus();
  }
  *out = &*it;
  return absl::OkStatus();
}

absl::Status FieldReader::String(absl::string_view key, bool required,
                                 std::string* out) {
  const Json* v = nullptr;
  if (auto s = Find(key, required, &v); !s.ok() || v == nullptr) return s;
  if (!v->is_string()) {
    return Fail(absl::StrCat("/", EscapePointerToken(key)),
                absl::StrCat("\"", key, "\" must be a string"));
  }
  *out = v->get<std::string>();
  return absl::OkStatus();
}

absl::Status FieldReader::Object(absl::string_view key, bool required,
                                 const Json** out) {
  if (auto s = Find(key, required, out); !s.ok() || *out == nullptr) return s;
  if (!(*out)->is_object()) {
    return Fail(absl::StrCat("/", EscapePointerToken(key)),
                absl::StrCat("\"", key, "\" must be an object"));
  }
  return absl::OkStatus();
}

absl::Status FieldReader::Array(absl::string_view key, bool required,
                                const Json** out) {
  if (auto s = Find(key, required, out); !s.ok() || *out == nullptr) return s;
  if (!(*out)->is_array()) {
    return Fail(absl::StrCat("/", EscapePointerToken(key)),
                absl::StrCat("\"", key, "\" must be an array"));
  }
  return absl::OkStatus();
}

absl::Status FieldReader::Schema(absl::string_view key, bool required,
                                 const Json** out) {
  if (auto s = Find(key, required, out); !s.ok() || *out == nullptr) return s;
  if (!(*out)->is_object() && !(*out)->is_boolean()) {
    return Fail(absl::StrCat("/", EscapePointerToken(key)),
                absl::StrCat("\"", key,
                             "\" must be a JSON Schema (object or boolean)"));
  }
  return absl::OkStatus();
}

absl::Status FieldReader::Bool(absl::string_view key, bool* out) {
  const Json* v = nullptr;
  if (auto s = Find(key, false, &v); !s.ok() || v == nullptr) return s;
  if (!v->is_boolean()) {
    return Fail(absl::StrCat("/", EscapePointerToken(key)),
                absl::StrCat("\"", key, "\" must be true or false"));
  }
  *out = v->get<bool>();
  return absl::OkStatus();
}

absl::Status FieldReader::Int(absl::string_view key, int min, int max,
                              int* out) {
  const Json* v = nullptr;
  if (auto s = Find(key, false, &v); !s.ok() || v == nullptr) return s;
  if (!v->is_number_integer() || v->get<int64_t>() < min ||
      v->get<int64_t>() > max) {
    return Fail(absl::StrCat("/", EscapePointerToken(key)),
                absl::StrCat("\"", key, "\" must be an integer from ", min,
                             " to ", max));
  }
  *out = static_cast<int>(v->get<int64_t>());
  return absl::OkStatus();
}

absl::Status FieldReader::ToolName(std::string* out) {
  if (auto s = String("name", true, out); !s.ok()) return s;
  if (out->empty() || out->size() > kMaxToolNameBytes) {
    return Fail("/name", "tool name must be 1 to 128 bytes");
  }
  const size_t bad = FindUnsafeToolNameByte(*out);
  if (bad != std::string::npos) {
    return Fail("/name",
                absl::StrCat(kToolNameConfusable, ": tool name \"",
                             VisibleToolName(*out), "\" has ",
                             CodePointAt(*out, bad), " at byte ", bad,
                             ": a tool name uses only ASCII letters, digits "
                             "and _ - . / (so that no two names look alike)"));
  }
  return absl::OkStatus();
}

absl::Status FieldReader::OnlyKeys(
    std::initializer_list<absl::string_view> allowed) {
  if (!value_.is_object()) return Fail("", "expected an object");
  for (const auto& [key, unused] : value_.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return Fail(absl::StrCat("/", EscapePointerToken(key)),
                  absl::StrCat("unknown field \"", key, "\""));
    }
  }
  return absl::OkStatus();
}

// The MCP spec's defaults: readOnlyHint false, destructiveHint true (it
// speaks only for tools that are not read-only). A hint that is not a
// boolean is no hint.
SideEffect SideEffectFromMcp(const Json* annotations) {
  auto hint = [&](const char* key) -> std::optional<bool> {
    if (annotations == nullptr) return std::nullopt;
    auto it = annotations->find(key);
    if (it == annotations->end() || !it->is_boolean()) return std::nullopt;
    return it->get<bool>();
  };
  const std::optional<bool> destructive = hint("destructiveHint");
  if (hint("readOnlyHint").value_or(false)) {
    // Contradictory hints take the safe side.
    return destructive.value_or(false) ? SideEffect::kDestructive
                                       : SideEffect::kRead;
  }
  return destructive.value_or(true) ? SideEffect::kDestructive
                                    : SideEffect::kWrite;
}

namespace {

absl::Status ReadSideEffect(FieldReader& t, SideEffect* out) {
  std::string name = "write";
  if (auto s = t.String("side_effect", false, &name); !s.ok()) return s;
  if (name == "read") {
    *out = SideEffect::kRead;
  } else if (name == "write") {
    *out = SideEffect::kWrite;
  } else if (name == "destructive") {
    *out = SideEffect::kDestructive;
  } else {
    return t.Fail("/side_effect",
                  "side_effect must be \"read\", \"write\" or \"destructive\"");
  }
  return absl::OkStatus();
}

absl::Status ReadOutputFormat(FieldReader& t, OutputFormat* out) {
  std::string name = "auto";
  if (auto s = t.String("output_format", false, &name); !s.ok()) return s;
  if (name == "auto") {
    *out = OutputFormat::kAuto;
  } else if (name == "mcp") {
    *out = OutputFormat::kMcp;
  } else if (name == "json") {
    *out = OutputFormat::kJson;
  } else {
    return t.Fail("/output_format",
                  "output_format must be \"auto\", \"mcp\" or \"json\"");
  }
  return absl::OkStatus();
}

absl::Status ReadToolgateTool(const Json& v, const std::string& ptr,
                              const RunSettings& settings, ToolSpec* spec) {
  FieldReader t(v, ptr, "");
  if (auto s = t.ToolName(&spec->name); !s.ok()) return s;
  t.set_tool(spec->name);
  if (auto s =
          t.OnlyKeys({"name", "description", "input_schema", "output_schema",
                      "side_effect", "output_format", "policy"});
      !s.ok()) {
    return s;
  }
  if (auto s = t.String("description", false, &spec->description); !s.ok())
    return s;
  const Json* in = nullptr;
  if (auto s = t.Schema("input_schema", true, &in); !s.ok()) return s;
  spec->input_schema = *in;
  const Json* out = nullptr;
  if (auto s = t.Schema("output_schema", false, &out); !s.ok()) return s;
  if (out != nullptr) spec->output_schema = *out;
  if (auto s = ReadSideEffect(t, &spec->side_effect); !s.ok()) return s;
  if (auto s = ReadOutputFormat(t, &spec->output_format); !s.ok()) return s;
  const Json* policy = nullptr;
  if (auto s = t.Object("policy", false, &policy); !s.ok()) return s;
  return ReadToolPolicy(policy != nullptr ? *policy : Json::object(), ptr,
                        settings, spec);
}

absl::Status ReadSettings(const Json& v, RunSettings* out) {
  FieldReader r(v, "/settings", "");
  if (auto s = r.OnlyKeys({"max_consecutive_rejects", "kill_switch",
                           "require_approval_for",
                           "max_calls_per_run_by_class"});
      !s.ok()) {
    return s;
  }
  if (auto s = r.Int("max_consecutive_rejects", 1, 1000,
                     &out->max_consecutive_rejects);
      !s.ok()) {
    return s;
  }
  if (auto s = ReadPolicySettings(r, out); !s.ok()) return s;
  const Json* ks = nullptr;
  if (auto s = r.Object("kill_switch", false, &ks); !s.ok() || !ks) return s;
  FieldReader k(*ks, "/settings/kill_switch", "");
  if (auto s = k.OnlyKeys({"threshold", "window"}); !s.ok()) return s;
  if (auto s = k.Int("window", 1, 1000, &out->kill_switch_window); !s.ok())
    return s;
  if (auto s = k.Int("threshold", 1, 1000, &out->kill_switch_threshold);
      !s.ok()) {
    return s;
  }
  // Checked with defaults filled in: a window alone must still hold the
  // default threshold, or every OpenRun on this snapshot would fail.
  if (out->kill_switch_threshold > out->kill_switch_window) {
    return k.Fail("", absl::StrCat("threshold (", out->kill_switch_threshold,
                                   ") must not exceed window (",
                                   out->kill_switch_window, ")"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadToolgate(const Json& doc, Manifest* m) {
  FieldReader root(doc, "", "");
  if (auto s = root.OnlyKeys({"toolgate", "tools", "documents", "settings"});
      !s.ok()) {
    return s;
  }
  std::string version;
  if (auto s = root.String("toolgate", true, &version); !s.ok()) return s;
  if (version != "v1")
    return Refuse("/toolgate", "\"toolgate\" must be \"v1\"");
  // Settings first: a tool's effective requires_approval depends on them.
  const Json* settings = nullptr;
  if (auto s = root.Object("settings", false, &settings); !s.ok()) return s;
  if (settings != nullptr) {
    if (auto s = ReadSettings(*settings, &m->settings); !s.ok()) return s;
  }
  const Json* tools = nullptr;
  if (auto s = root.Array("tools", true, &tools); !s.ok()) return s;
  for (size_t i = 0; i < tools->size(); ++i) {
    ToolSpec spec;
    const std::string ptr = absl::StrCat("/tools/", i);
    if (auto s = ReadToolgateTool((*tools)[i], ptr, m->settings, &spec);
        !s.ok()) {
      return s;
    }
    m->schema_pointers[spec.name] = {ptr + "/input_schema",
                                     ptr + "/output_schema"};
    m->tools.push_back(std::move(spec));
  }
  const Json* docs = nullptr;
  if (auto s = root.Object("documents", false, &docs); !s.ok()) return s;
  if (docs != nullptr) {
    for (const auto& [uri, schema] : docs->items()) {
      if (!schema.is_object() && !schema.is_boolean()) {
        return Refuse(absl::StrCat("/documents/", EscapePointerToken(uri)),
                      "a document must be a JSON Schema");
      }
      m->documents.emplace(uri, schema);
    }
  }
  return absl::OkStatus();
}

}  // namespace manifest_internal
}  // namespace toolgate
