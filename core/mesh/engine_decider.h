// The McpDecider of callers inside the toolgate process (Envoy's
// ext_authz and ext_proc): the Engine itself, no copy, no transport.
//
// Thread-safety: as the Engine; any number of threads at once.
#ifndef TOOLGATE_CORE_MESH_ENGINE_DECIDER_H_
#define TOOLGATE_CORE_MESH_ENGINE_DECIDER_H_

#include <string>
#include <vector>

#include "core/engine/engine.h"
#include "core/mesh/mcp_decider.h"

namespace toolgate {
namespace mesh {

class EngineDecider final : public McpDecider {
 public:
  // `engine` is not owned and must outlive this.
  explicit EngineDecider(Engine* engine) : engine_(engine) {}

  absl::StatusOr<ValidateCallResponse> ValidateToolCall(
      const ValidateCallRequest& request) override {
    return engine_->ValidateToolCall(request);
  }

  absl::StatusOr<ValidateOutputResponse> ValidateToolOutput(
      const ValidateOutputRequest& request) override {
    return engine_->ValidateToolOutput(request);
  }

  // From the snapshot's compiled tools; an unknown tool is false.
  absl::StatusOr<std::vector<bool>> RequiresApproval(
      absl::string_view snapshot_id,
      const std::vector<std::string>& tools) override;

  McpLimits limits() const { return McpLimitsFor(engine_->options()); }

 private:
  Engine* const engine_;
};

}  // namespace mesh
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MESH_ENGINE_DECIDER_H_
