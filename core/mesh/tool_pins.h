// The tool definitions an MCP session was pinned to, and what a later
// tools/list answer changed (a "rug pull": same name, new description or
// schema after the agent was shown the tool).
//
// A definition is what the model reads and what a call is checked
// against: name, title, description, inputSchema, outputSchema and
// annotations (compared as canonical JSON, so key order and spacing do not
// count). Other members (icons, _meta) are not part of it.
//
// Thread-safety: ToolPins is a value; not safe for concurrent mutation.
#ifndef TOOLGATE_CORE_MESH_TOOL_PINS_H_
#define TOOLGATE_CORE_MESH_TOOL_PINS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"

namespace toolgate {
namespace mesh {

// One page of a tools/list result: {"tools": [...], "nextCursor"?: "..."}.
struct ToolsPage {
  // The tools that are objects with a non-empty string "name" (nothing
  // else can be called); `skipped` counts the others.
  std::vector<Json> tools;
  size_t skipped = 0;
  std::optional<std::string> next_cursor;
};

// INVALID_ARGUMENT when `result` has no "tools" array or a nextCursor that
// is not a string.
absl::StatusOr<ToolsPage> ReadToolsPage(const Json& result);

// Canonical JSON of the members of `tool` that make its definition.
std::string DefinitionKey(const Json& tool);

enum class ToolChange { kChanged, kAdded, kRemoved };

// "changed", "added", "removed".
absl::string_view ToolChangeName(ToolChange change);

struct ToolDiff {
  std::string tool;
  ToolChange change = ToolChange::kChanged;
};

class ToolPins {
 public:
  // Pins `tools` (a complete list), replacing any earlier pins. A name
  // listed twice is ambiguous and not pinned: those names are returned.
  std::vector<std::string> Pin(const std::vector<Json>& tools);

  bool IsPinned(absl::string_view name) const { return keys_.contains(name); }
  size_t size() const { return keys_.size(); }

  // How `tools` differs from the pins, in list order (then removed tools
  // in name order). `complete`: `tools` is the whole list (not one page),
  // so a pinned tool missing from it was removed.
  std::vector<ToolDiff> Compare(const std::vector<Json>& tools,
                                bool complete) const;

 private:
  absl::flat_hash_map<std::string, std::string> keys_;  // name -> key
};

}  // namespace mesh
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MESH_TOOL_PINS_H_
