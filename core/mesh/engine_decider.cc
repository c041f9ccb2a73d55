#include "core/mesh/engine_decider.h"

namespace toolgate {
namespace mesh {

absl::StatusOr<std::vector<bool>> EngineDecider::RequiresApproval(
    absl::string_view snapshot_id, const std::vector<std::string>& tools) {
  auto snapshot = engine_->GetSnapshot(snapshot_id, "");
  if (!snapshot.ok()) return snapshot.status();
  std::vector<bool> out;
  out.reserve(tools.size());
  for (const std::string& name : tools) {
    const CompiledTool* tool = (*snapshot)->FindTool(name);
    out.push_back(tool != nullptr && tool->spec.policy.requires_approval);
  }
  return out;
}

}  // namespace mesh
}  // namespace toolgate
