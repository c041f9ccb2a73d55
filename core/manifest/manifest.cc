#include "core/manifest/manifest.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "core/manifest/manifest_fields.h"
#include "core/manifest/manifest_policy.h"
#include "core/util/ids.h"

namespace toolgate {
namespace {

using manifest_internal::FieldReader;
using manifest_internal::Refuse;

absl::StatusOr<ManifestFormat> DetectFormat(const Json& doc) {
  std::set<ManifestFormat> seen;
  if (doc.is_array()) {
    if (doc.empty()) return Refuse("", "empty tools array: format ambiguous");
    for (const Json& t : doc) {
      if (!t.is_object()) continue;
      if (t.contains("function")) seen.insert(ManifestFormat::kOpenAI);
      if (t.contains("input_schema")) seen.insert(ManifestFormat::kAnthropic);
    }
  } else if (doc.is_object()) {
    if (doc.contains("toolgate")) seen.insert(ManifestFormat::kToolgate);
    auto tools = doc.find("tools");
    if (!doc.contains("toolgate") && tools != doc.end() && tools->is_array()) {
      for (const Json& t : *tools) {
        if (t.is_object() && t.contains("inputSchema")) {
          seen.insert(ManifestFormat::kMcp);
        }
      }
    }
  }
  if (seen.size() == 1) return *seen.begin();
  if (seen.empty()) {
    return Refuse("",
                  "cannot detect the manifest format (expected an OpenAI "
                  "or Anthropic tools array, an MCP tools/list result, "
                  "or a toolgate manifest)");
  }
  return Refuse("",
                "manifest format is ambiguous: it mixes formats; name "
                "the format explicitly");
}

absl::Status ReadOpenAI(const Json& doc, Manifest* m) {
  if (!doc.is_array()) return Refuse("", "an OpenAI manifest is a tools array");
  for (size_t i = 0; i < doc.size(); ++i) {
    FieldReader tool(doc[i], absl::StrCat("/", i), "");
    std::string type;
    if (auto s = tool.String("type", /*required=*/true, &type); !s.ok())
      return s;
    if (type != "function") {
      return tool.Fail("/type", "type must be \"function\"");
    }
    const Json* fn = nullptr;
    if (auto s = tool.Object("function", /*required=*/true, &fn); !s.ok())
      return s;
    FieldReader f(*fn, absl::StrCat("/", i, "/function"), "");
    ToolSpec spec;
    if (auto s = f.ToolName(&spec.name); !s.ok()) return s;
    f.set_tool(spec.name);
    if (auto s = f.String("description", false, &spec.description); !s.ok())
      return s;
    const Json* params = nullptr;
    if (auto s = f.Schema("parameters", /*required=*/false, &params); !s.ok())
      return s;
    m->schema_pointers[spec.name].input =
        absl::StrCat("/", i, "/function/parameters");
    if (params == nullptr) {
      // OpenAI treats a missing parameters as "takes no arguments".
      spec.input_schema = {{"type", "object"},
                           {"properties", Json::object()},
                           {"additionalProperties", false}};
      m->warnings.push_back(absl::StrCat("tool \"", spec.name,
                                         "\" has no parameters: it accepts "
                                         "only an empty arguments object"));
    } else {
      spec.input_schema = *params;
    }
    m->tools.push_back(std::move(spec));
  }
  return absl::OkStatus();
}

absl::Status ReadAnthropic(const Json& doc, Manifest* m) {
  if (!doc.is_array()) {
    return Refuse("", "an Anthropic manifest is a tools array");
  }
  for (size_t i = 0; i < doc.size(); ++i) {
    FieldReader t(doc[i], absl::StrCat("/", i), "");
    ToolSpec spec;
    if (auto s = t.ToolName(&spec.name); !s.ok()) return s;
    t.set_tool(spec.name);
    if (auto s = t.String("description", false, &spec.description); !s.ok())
      return s;
    const Json* schema = nullptr;
    if (auto s = t.Schema("input_schema", true, &schema); !s.ok()) return s;
    spec.input_schema = *schema;
    m->schema_pointers[spec.name].input = absl::StrCat("/", i, "/input_schema");
    m->tools.push_back(std::move(spec));
  }
  return absl::OkStatus();
}

absl::Status ReadMcp(const Json& doc, Manifest* m) {
  FieldReader root(doc, "", "");
  const Json* tools = nullptr;
  if (auto s = root.Array("tools", true, &tools); !s.ok()) return s;
  for (size_t i = 0; i < tools->size(); ++i) {
    FieldReader t((*tools)[i], absl::StrCat("/tools/", i), "");
    ToolSpec spec;
    if (auto s = t.ToolName(&spec.name); !s.ok()) return s;
    t.set_tool(spec.name);
    if (auto s = t.String("description", false, &spec.description); !s.ok())
      return s;
    const Json* in = nullptr;
    if (auto s = t.Schema("inputSchema", true, &in); !s.ok()) return s;
    spec.input_schema = *in;
    m->schema_pointers[spec.name] = {
        absl::StrCat("/tools/", i, "/inputSchema"),
        absl::StrCat("/tools/", i, "/outputSchema")};
    const Json* out = nullptr;
    if (auto s = t.Schema("outputSchema", false, &out); !s.ok()) return s;
    if (out != nullptr) spec.output_schema = *out;
    const Json* ann = nullptr;
    if (auto s = t.Object("annotations", false, &ann); !s.ok()) return s;
    spec.side_effect = manifest_internal::SideEffectFromMcp(ann);
    // Tools listed by an MCP server answer with CallToolResults.
    spec.output_format = OutputFormat::kMcp;
    m->tools.push_back(std::move(spec));
  }
  return absl::OkStatus();
}

// Names must differ in more than case or look-alike characters: a call to
// one must never be taken (by the model, a reviewer approving it, or an
// executor that folds case) for a call to the other.
absl::Status CheckNames(Manifest* m) {
  std::sort(
      m->tools.begin(), m->tools.end(),
      [](const ToolSpec& a, const ToolSpec& b) { return a.name < b.name; });
  std::map<std::string, const std::string*> seen;  // LookAlikeKey -> name
  for (const ToolSpec& t : m->tools) {
    auto [it, inserted] =
        seen.emplace(manifest_internal::LookAlikeKey(t.name), &t.name);
    if (inserted) continue;
    if (*it->second == t.name) {
      return Refuse("", absl::StrCat("duplicate tool name \"", t.name, "\""));
    }
    return Refuse(
        "", absl::StrCat(manifest_internal::kToolNameConfusable,
                         ": tool names \"", *it->second, "\" and \"", t.name,
                         "\" differ only in case or look-alike characters "
                         "(I l 1, O 0, rn m, vv w)"));
  }
  if (m->tools.empty()) return Refuse("", "the manifest declares no tools");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Manifest> ParseManifest(absl::string_view manifest_json,
                                       ManifestFormat format,
                                       const JsonLimits& limits) {
  absl::StatusOr<Json> doc = ParseStrictJson(manifest_json, limits);
  if (!doc.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("manifest is not strict JSON: ", doc.status().message()));
  }
  if (format == ManifestFormat::kAuto) {
    absl::StatusOr<ManifestFormat> detected = DetectFormat(*doc);
    if (!detected.ok()) return detected.status();
    format = *detected;
  }
  Manifest m;
  m.format = format;
  absl::Status s;
  switch (format) {
    case ManifestFormat::kOpenAI:
      s = ReadOpenAI(*doc, &m);
      break;
    case ManifestFormat::kAnthropic:
      s = ReadAnthropic(*doc, &m);
      break;
    case ManifestFormat::kMcp:
      s = ReadMcp(*doc, &m);
      break;
    case ManifestFormat::kToolgate:
      s = manifest_internal::ReadToolgate(*doc, &m);
      break;
    case ManifestFormat::kAuto:
      s = Refuse("", "format not detected");
      break;
  }
  if (!s.ok()) return s;
  if (s = CheckNames(&m); !s.ok()) return s;
  return m;
}

Json ManifestToJson(const Manifest& m) {
  Json tools = Json::array();
  for (const ToolSpec& t : m.tools) {
    Json j = {{"name", t.name},
              {"description", t.description},
              {"input_schema", t.input_schema},
              {"side_effect", SideEffectName(t.side_effect)},
              {"output_format", OutputFormatName(t.output_format)},
              {"policy", manifest_internal::ToolPolicyToJson(t.policy)}};
    if (t.output_schema.has_value()) j["output_schema"] = *t.output_schema;
    tools.push_back(std::move(j));
  }
  Json docs = Json::object();
  for (const auto& [uri, doc] : m.documents) docs[uri] = doc;
  Json settings = {
      {"max_consecutive_rejects", m.settings.max_consecutive_rejects},
      {"kill_switch",
       {{"threshold", m.settings.kill_switch_threshold},
        {"window", m.settings.kill_switch_window}}}};
  manifest_internal::AddPolicySettings(m.settings, &settings);
  return {{"toolgate", "v1"},
          {"tools", std::move(tools)},
          {"documents", std::move(docs)},
          {"settings", std::move(settings)}};
}

std::string ManifestId(const Manifest& manifest) {
  return absl::StrCat(
      "sha256:",
      absl::BytesToHexString(Sha256(CanonicalJson(ManifestToJson(manifest)))));
}

absl::string_view CoercionName(Coercion coercion) {
  switch (coercion) {
    case Coercion::kIntegerFromString:
      return "integer_from_string";
    case Coercion::kBooleanFromString:
      return "boolean_from_string";
  }
  return "integer_from_string";
}

absl::string_view ManifestFormatName(ManifestFormat format) {
  switch (format) {
    case ManifestFormat::kAuto:
      return "auto";
    case ManifestFormat::kToolgate:
      return "toolgate";
    case ManifestFormat::kOpenAI:
      return "openai";
    case ManifestFormat::kAnthropic:
      return "anthropic";
    case ManifestFormat::kMcp:
      return "mcp";
  }
  return "unknown";
}

absl::string_view OutputFormatName(OutputFormat format) {
  switch (format) {
    case OutputFormat::kAuto:
      return "auto";
    case OutputFormat::kMcp:
      return "mcp";
    case OutputFormat::kJson:
      return "json";
  }
  return "auto";
}

absl::string_view SideEffectName(SideEffect effect) {
  switch (effect) {
    case SideEffect::kRead:
      return "read";
    case SideEffect::kWrite:
      return "write";
    case SideEffect::kDestructive:
      return "destructive";
  }
  return "write";
}

}  // namespace toolgate
