// The snapshot of an MCP server's tools as the stdio gateway pins it:
// the server's tools/list converted to toolgate's manifest format, with the
// operator's --policy file merged in.
//
// Each tool keeps what the MCP manifest format gives it (docs/manifests.md:
// description, inputSchema, outputSchema, the side-effect class its
// annotations give, output_format "mcp"), read by core/manifest's own MCP
// reader so the mapping cannot drift; the policy file may set its
// side_effect and policy, and the manifest's settings and documents.
//
// Policy file (strict JSON; unknown members refused):
//   {"settings":  {...},   // toolgate manifest "settings", as is
//    "documents": {...},   // toolgate manifest "documents", as is
//    "tools": {"NAME": {"side_effect": "read|write|destructive",
//                       "policy": {...}}}}  // toolgate tool "policy"
// Every member is optional. A tool the policy names must be listed by the
// server: a misspelt name never leaves a tool without its rules.
//
// Thread-safety: pure functions over values.
#ifndef TOOLGATE_CORE_MESH_MCP_MANIFEST_H_
#define TOOLGATE_CORE_MESH_MCP_MANIFEST_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"

namespace toolgate {
namespace mesh {

struct McpPolicy {
  struct Tool {
    std::optional<std::string> side_effect;
    Json policy;  // Null: none.
  };
  Json settings;   // Null: none.
  Json documents;  // Null: none.
  std::map<std::string, Tool> tools;
};

// INVALID_ARGUMENT (with the JSON Pointer of the fault) for a file that is
// not strict JSON of the shape above, or whose rules core/manifest refuses
// (checked on a stand-in tool per name, so most mistakes show at start).
absl::StatusOr<McpPolicy> ParseMcpPolicy(absl::string_view text);

// One MCP tool (an element of tools/list's "tools") as a toolgate-format
// tool with its policy. INVALID_ARGUMENT when core/manifest cannot read it
// as an MCP tool (bad name, no inputSchema, ...).
absl::StatusOr<Json> ToolgateTool(const Json& mcp_tool,
                                  const McpPolicy& policy);

// The toolgate-format manifest of `tools` (each one ToolgateTool made)
// with the policy's settings and documents, as canonical JSON.
std::string ToolgateManifest(const std::vector<Json>& tools,
                             const McpPolicy& policy);

// The tools the policy names that are not in `listed` (sorted).
std::vector<std::string> UnlistedPolicyTools(
    const McpPolicy& policy, const std::vector<std::string>& listed);

}  // namespace mesh
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MESH_MCP_MANIFEST_H_
