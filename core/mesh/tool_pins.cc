#include "core/mesh/tool_pins.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"

namespace toolgate {
namespace mesh {
namespace {

constexpr const char* kDefinitionMembers[] = {
    "name",         "title",       "description",
    "inputSchema",  "outputSchema", "annotations"};

const std::string& NameOf(const Json& tool) {
  return tool["name"].get_ref<const std::string&>();
}

}  // namespace

absl::StatusOr<ToolsPage> ReadToolsPage(const Json& result) {
  if (!result.is_object()) {
    return absl::InvalidArgumentError("tools/list result is not an object");
  }
  auto tools = result.find("tools");
  if (tools == result.end() || !tools->is_array()) {
    return absl::InvalidArgumentError("tools/list result has no tools array");
  }
  ToolsPage page;
  for (const Json& tool : *tools) {
    auto name = tool.is_object() ? tool.find("name") : tool.end();
    if (!tool.is_object() || name == tool.end() || !name->is_string() ||
        name->get_ref<const std::string&>().empty()) {
      ++page.skipped;
      continue;
    }
    page.tools.push_back(tool);
  }
  auto cursor = result.find("nextCursor");
  if (cursor != result.end() && !cursor->is_null()) {
    if (!cursor->is_string()) {
      return absl::InvalidArgumentError("nextCursor is not a string");
    }
    page.next_cursor = cursor->get<std::string>();
  }
  return page;
}

std::string DefinitionKey(const Json& tool) {
  Json key = Json::object();
  for (const char* member : kDefinitionMembers) {
    auto it = tool.find(member);
    if (it != tool.end()) key[member] = *it;
  }
  return CanonicalJson(key);
}

absl::string_view ToolChangeName(ToolChange change) {
  switch (change) {
    case ToolChange::kChanged:
      return "changed";
    case ToolChange::kAdded:
      return "added";
    case ToolChange::kRemoved:
      return "removed";
  }
  return "changed";
}

std::vector<std::string> ToolPins::Pin(const std::vector<Json>& tools) {
  keys_.clear();
  absl::flat_hash_set<std::string> duplicated;
  for (const Json& tool : tools) {
    auto [it, inserted] = keys_.emplace(NameOf(tool), DefinitionKey(tool));
    if (!inserted) duplicated.insert(it->first);
  }
  std::vector<std::string> out(duplicated.begin(), duplicated.end());
  std::sort(out.begin(), out.end());
  for (const std::string& name : out) keys_.erase(name);
  return out;
}

std::vector<ToolDiff> ToolPins::Compare(const std::vector<Json>& tools,
                                        bool complete) const {
  std::vector<ToolDiff> diffs;
  absl::flat_hash_set<std::string> reported;
  absl::flat_hash_set<std::string> listed;
  for (const Json& tool : tools) {
    const std::string& name = NameOf(tool);
    listed.insert(name);
    auto it = keys_.find(name);
    ToolChange change;
    if (it == keys_.end()) {
      change = ToolChange::kAdded;
    } else if (it->second != DefinitionKey(tool)) {
      change = ToolChange::kChanged;
    } else {
      continue;
    }
    if (reported.insert(name).second) diffs.push_back({name, change});
  }
  if (!complete) return diffs;
  std::vector<std::string> removed;
  for (const auto& [name, key] : keys_) {
    if (!listed.contains(name)) removed.push_back(name);
  }
  std::sort(removed.begin(), removed.end());
  for (std::string& name : removed) {
    diffs.push_back({std::move(name), ToolChange::kRemoved});
  }
  return diffs;
}

}  // namespace mesh
}  // namespace toolgate
