// What the MCP decision path (core/mesh/mcp_gate.h) needs from toolgate's
// engine, as a small interface over the RPC types of core/pipeline/api.h.
//
// Why an interface: the path has three callers. Envoy's ext_authz and
// ext_proc (server/envoy_*) run in the toolgate process and decide with
// the Engine itself (EngineDecider, core/mesh/engine_decider.h); the MCP
// stdio gateway (`toolgatectl mcp-proxy`, client/mcp_proxy/) runs in its
// own process and reaches the engine over gRPC (toolgate.v1
// ValidateToolCall / ValidateToolOutput). The path is the same for all
// three; only how a decision is fetched differs.
//
// Contract for an implementation:
//  * ValidateToolCall / ValidateToolOutput: the engine's answer for the
//    request exactly as given (every field passed on: forward_as_sent,
//    source, cancel, run credentials), or a Status when there is none. A
//    Status is never read as a decision: the path turns it into a deny
//    (run_rejected for the caller's errors, UNAVAILABLE otherwise; see
//    ErrorForEngineStatus in jsonrpc_error.h).
//  * RequiresApproval: for each tool name, whether the snapshot's tool
//    asks for a human's approval (policy.requires_approval). Used only to
//    say which call of a batch that was NOT allowed the approval is for;
//    any error, or a vector of another length, tells every call (never
//    fewer). An implementation that cannot tell may return UNIMPLEMENTED.
//
// Thread-safety: the path calls an implementation from the thread that
// runs it; implementations used by several threads (the Envoy services)
// must be thread-safe, as EngineDecider is.
#ifndef TOOLGATE_CORE_MESH_MCP_DECIDER_H_
#define TOOLGATE_CORE_MESH_MCP_DECIDER_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"
#include "core/pipeline/api.h"

namespace toolgate {
namespace mesh {

class McpDecider {
 public:
  virtual ~McpDecider() = default;

  virtual absl::StatusOr<ValidateCallResponse> ValidateToolCall(
      const ValidateCallRequest& request) = 0;

  virtual absl::StatusOr<ValidateOutputResponse> ValidateToolOutput(
      const ValidateOutputRequest& request) = 0;

  virtual absl::StatusOr<std::vector<bool>> RequiresApproval(
      absl::string_view snapshot_id, const std::vector<std::string>& tools) = 0;
};

// The bounds of everything the path reads.
struct McpLimits {
  // Every body: a request, a tool's answer (size, depth, strictness).
  JsonLimits json;
  // A batch answer checks at most this many tool calls' results (each one
  // ValidateToolOutput); a batch holding more is refused whole
  // (too_many_calls). The engine refuses a turn with more calls anyway
  // (EngineOptions::max_calls_per_output), so ext_authz never allows one.
  size_t max_answer_calls = 64;
};

inline McpLimits McpLimitsFor(const EngineOptions& options) {
  McpLimits limits;
  limits.json = options.limits;
  limits.max_answer_calls = options.max_calls_per_output;
  return limits;
}

}  // namespace mesh
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MESH_MCP_DECIDER_H_
