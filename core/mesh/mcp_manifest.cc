#include "core/mesh/mcp_manifest.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/manifest/manifest.h"

namespace toolgate {
namespace mesh {
namespace {

absl::Status Refuse(absl::string_view pointer, absl::string_view message) {
  return MakeJsonError("invalid_policy", pointer,
                       absl::StrCat("--policy ", pointer,
                                    pointer.empty() ? "" : ": ", message));
}

absl::Status OnlyMembers(const Json& value, absl::string_view pointer,
                         std::initializer_list<const char*> allowed) {
  if (!value.is_object()) return Refuse(pointer, "expected an object");
  for (const auto& item : value.items()) {
    if (std::none_of(allowed.begin(), allowed.end(),
                     [&](const char* a) { return item.key() == a; })) {
      return Refuse(absl::StrCat(pointer, "/", EscapePointerToken(item.key())),
                    absl::StrCat("unknown member \"", item.key(), "\""));
    }
  }
  return absl::OkStatus();
}

absl::Status ReadTool(const std::string& name, const Json& value,
                      McpPolicy::Tool* out) {
  const std::string at = absl::StrCat("/tools/", EscapePointerToken(name));
  if (auto s = OnlyMembers(value, at, {"side_effect", "policy"}); !s.ok()) {
    return s;
  }
  if (auto it = value.find("side_effect"); it != value.end()) {
    if (!it->is_string()) return Refuse(at + "/side_effect", "not a string");
    out->side_effect = it->get<std::string>();
  }
  if (auto it = value.find("policy"); it != value.end()) out->policy = *it;
  return absl::OkStatus();
}

// The rules on a stand-in tool of each name, read by core/manifest.
absl::Status CheckWithManifest(const McpPolicy& policy) {
  std::vector<std::string> names;
  for (const auto& [name, tool] : policy.tools) names.push_back(name);
  if (names.empty()) names.push_back("x");
  std::vector<Json> tools;
  for (const std::string& name : names) {
    absl::StatusOr<Json> tool = ToolgateTool(
        Json{{"name", name}, {"inputSchema", Json::object()}}, policy);
    if (!tool.ok()) return Refuse("/tools", tool.status().message());
    tools.push_back(*std::move(tool));
  }
  const std::string manifest = ToolgateManifest(tools, policy);
  absl::StatusOr<Manifest> parsed =
      ParseManifest(manifest, ManifestFormat::kToolgate, JsonLimits{64 << 20});
  if (!parsed.ok()) return Refuse("", parsed.status().message());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<McpPolicy> ParseMcpPolicy(absl::string_view text) {
  absl::StatusOr<Json> doc = ParseStrictJson(text, JsonLimits{64 << 20});
  if (!doc.ok()) {
    return Refuse(JsonErrorPointer(doc.status()),
                  absl::StrCat("not strict JSON: ", doc.status().message()));
  }
  if (auto s = OnlyMembers(*doc, "", {"settings", "documents", "tools"});
      !s.ok()) {
    return s;
  }
  McpPolicy policy;
  if (auto it = doc->find("settings"); it != doc->end()) policy.settings = *it;
  if (auto it = doc->find("documents"); it != doc->end()) {
    policy.documents = *it;
  }
  if (auto it = doc->find("tools"); it != doc->end()) {
    if (!it->is_object()) return Refuse("/tools", "expected an object");
    for (const auto& item : it->items()) {
      if (auto s = ReadTool(item.key(), item.value(),
                            &policy.tools[item.key()]);
          !s.ok()) {
        return s;
      }
    }
  }
  if (auto s = CheckWithManifest(policy); !s.ok()) return s;
  return policy;
}

absl::StatusOr<Json> ToolgateTool(const Json& mcp_tool,
                                  const McpPolicy& policy) {
  // core/manifest reads the tool as an MCP manifest of one: the same
  // checks and the same annotation mapping as CreateSnapshot's.
  absl::StatusOr<Manifest> read =
      ParseManifest(CanonicalJson(Json{{"tools", Json::array({mcp_tool})}}),
                    ManifestFormat::kMcp, JsonLimits{64 << 20});
  if (!read.ok()) return read.status();
  const ToolSpec& spec = read->tools.front();
  Json tool = {{"name", spec.name},
               {"description", spec.description},
               {"input_schema", spec.input_schema},
               {"side_effect", std::string(SideEffectName(spec.side_effect))},
               {"output_format", "mcp"}};
  if (spec.output_schema.has_value()) tool["output_schema"] = *spec.output_schema;
  auto rule = policy.tools.find(spec.name);
  if (rule != policy.tools.end()) {
    if (rule->second.side_effect) tool["side_effect"] = *rule->second.side_effect;
    if (!rule->second.policy.is_null()) tool["policy"] = rule->second.policy;
  }
  return tool;
}

std::string ToolgateManifest(const std::vector<Json>& tools,
                             const McpPolicy& policy) {
  Json manifest = {{"toolgate", "v1"}, {"tools", tools}};
  if (!policy.settings.is_null()) manifest["settings"] = policy.settings;
  if (!policy.documents.is_null()) manifest["documents"] = policy.documents;
  return CanonicalJson(manifest);
}

std::vector<std::string> UnlistedPolicyTools(
    const McpPolicy& policy, const std::vector<std::string>& listed) {
  absl::flat_hash_set<absl::string_view> names(listed.begin(), listed.end());
  std::vector<std::string> out;
  for (const auto& [name, rule] : policy.tools) {
    if (!names.contains(name)) out.push_back(name);
  }
  return out;
}

}  // namespace mesh
}  // namespace toolgate
