// The mesh's decision on one request body, over an McpDecider (the
// engine, in process or over gRPC): what Envoy's ext_authz Check answers
// once the adapter (server/envoy_authz) has read the HTTP request and
// resolved its snapshot, and what the stdio gateway answers a tools/call
// line with. docs/mesh.md has the rules; mcp_gate.h is the entry point.
//
// MCP routes: the body's messages are read (mcp_request.h); any message
// toolgate does not let through denies the body before anything is
// decided; otherwise its tools/call messages are ONE turn (mcp_turn.h),
// decided by one ValidateToolCall (so a denied batch spent nothing: no
// budget, no approval). An ALLOW passes only when the engine decided
// exactly the calls sent (names and arguments; the request is forwarded
// as sent, never rewritten: forward_as_sent). Lifecycle and read methods
// alone pass without a decision.
//
// REST routes: a path with a query string or fragment is refused
// (query_not_allowed); the path template names the tool (no_tool) and the
// body, read as the mesh reads every body, is its arguments.
//
// Thread-safety: as the decider; any number of decisions at once.
#ifndef TOOLGATE_CORE_MESH_MCP_DECIDE_H_
#define TOOLGATE_CORE_MESH_MCP_DECIDE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/trace/tracer.h"
#include "core/json/strict_json.h"
#include "core/mesh/jsonrpc_error.h"
#include "core/mesh/mcp_decider.h"
#include "core/mesh/mcp_request.h"
#include "core/pipeline/api.h"
#include "core/util/cancel.h"

namespace toolgate {
namespace mesh {

// Who asks, read from the request's headers by the adapter.
struct McpAsk {
  std::string snapshot_id;  // Resolved; "" for the run's pinned one.
  std::string run_id;
  std::string run_token;
  std::string approval_id;
  CancelToken cancel;
  std::string source;  // The audit record's source ("envoy_ext_authz").
  // The stdio gateway's JSON-RPC id (canonical JSON) for the audit record.
  std::string mcp_request_id;
  // Not owned, may be null: the engine's stages become its child spans.
  trace::RequestTrace* trace = nullptr;
};

struct McpDecision {
  // Fail closed: a decision is a deny unless a path below allowed it.
  bool allowed = false;
  // Denied: the JSON-RPC error message (or, for a batch, the array of
  // them) the agent gets; REST routes answer its "error" member.
  Json answer;
  // The decision behind the answer, one of the metrics labels (docs/mesh.md
  // "Metrics"): ALLOW, REJECT, NEEDS_APPROVAL, STOP, PASS_THROUGH,
  // DENIED_REQUEST, DENIED_RUN, ERROR. A constant.
  absl::string_view label = "DENIED_REQUEST";
  bool called = false;      // A tools/call (or REST call) was decided.
  std::string tool;         // The single call's tool (not a batch).
  std::string snapshot_id;  // As the engine resolved it.
  std::vector<std::string> audit_ids;
  // The engine's answer, when it gave one (the metrics read it).
  std::optional<ValidateCallResponse> decided;
};

// `request` read once (ReadMcpRequest) by the caller, which may have
// answered a deny from it first.
McpDecision DecideMcpRequest(McpDecider& decider, const McpLimits& limits,
                             const McpAsk& ask, const McpRequest& request);

McpDecision DecideRestCall(McpDecider& decider, const McpLimits& limits,
                           const McpAsk& ask, absl::string_view tool_path,
                           absl::string_view path, absl::string_view body);

// A deny before the body is read: the error for `id`.
McpDecision Denied(const Json& id, const RpcError& error);

}  // namespace mesh
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MESH_MCP_DECIDE_H_
