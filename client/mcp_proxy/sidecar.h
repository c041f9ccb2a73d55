// The gateway's side of the toolgate sidecar: every decision the stdio
// gateway takes is an RPC of the public toolgate.v1 API (client/
// toolgate_client.h), so the sidecar audits and counts it as any other.
//
//   PinTools      CreateSnapshot (the server's tools as a toolgate-format
//                 manifest with the --policy file merged: core/mesh/
//                 mcp_manifest.h) + OpenRun (--tenant as context "tenant",
//                 --model). Tools the sidecar refuses (a schema it cannot
//                 compile, a name it refuses) are left out and named.
//   DecideCall    the MCP decision path (core/mesh/mcp_gate.h), the same
//                 one Envoy's ext_authz runs, over a GrpcDecider: the host's
//                 tools/call message is read (ReadMessage) and decided in
//                 the run (ValidateToolCall, MCP params as sent); the
//                 path's answer is the JSON-RPC error of a deny. On top,
//                 what only stdio has: NEEDS_APPROVAL with --await-approval
//                 waits (AwaitApproval) and decides again with the approval.
//   CheckResult   the path's CheckResult of the server's response (an MCP
//                 CallToolResult, ValidateToolOutput fail-closed); INVALID
//                 becomes an isError tool result for the host.
// Each carries the MCP request id (mcp_request_id) for the audit record.
// Every answer that is not a clear ALLOW / VALID, and every failed RPC,
// becomes a refusal: never a forwarded call or an unchecked result.
//
// Thread-safety: const methods may be called from any thread at once.
#ifndef TOOLGATE_CLIENT_MCP_PROXY_SIDECAR_H_
#define TOOLGATE_CLIENT_MCP_PROXY_SIDECAR_H_

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/mcp_proxy/grpc_decider.h"
#include "client/toolgate_client.h"
#include "core/json/strict_json.h"
#include "core/mesh/mcp_gate.h"
#include "core/mesh/mcp_manifest.h"

namespace toolgate {
namespace mcp_proxy {

struct RunRef {
  std::string snapshot_id;
  std::string run_id;
  std::string run_token;
};

struct Pinned {
  RunRef run;
  // Tools left out of the snapshot, and why.
  std::vector<std::pair<std::string, std::string>> dropped;
};

struct SidecarOptions {
  std::string tenant;  // OpenRun context["tenant"] when not empty.
  std::string model;
  mesh::McpPolicy policy;
  // NEEDS_APPROVAL: how long to wait for an operator (0: refuse at once).
  absl::Duration await_approval = absl::ZeroDuration();
  // The command an operator runs to approve, up to "--approval"; printed
  // (stderr) whenever a call needs approval.
  std::string approve_command;
};

// What becomes of one tools/call.
struct CallVerdict {
  bool forward = false;
  // forward: the request for the server (canonical JSON, the arguments as
  // decided); else the error response for the host.
  std::string line;
  // The approval the call waits for: remember it for the same call.
  std::string pending_approval;
  // The remembered approval was used, or can no longer be: forget it.
  bool approval_done = false;
};

class Sidecar {
 public:
  // `client` and `stopping` (not owned) must outlive this; `stopping` cuts
  // approval waits short when set.
  Sidecar(const client::ToolGateClient* client, SidecarOptions options,
          const std::atomic<bool>* stopping);

  // FAILED_PRECONDITION when nothing can be pinned (no readable tool, a
  // policy naming a tool the server does not list); RPC errors as they are.
  absl::StatusOr<Pinned> PinTools(const std::vector<Json>& tools) const;
  void CloseRun(const RunRef& run) const;

  // `params`: the tools/call params (an object with a string "name" and
  // an "arguments" member). `approval_id`: one remembered for this call.
  CallVerdict DecideCall(const RunRef& run, const Json& id,
                         const std::string& id_key, const Json& params,
                         const std::string& approval_id) const;

  // The line the host gets for `response`, the server's answer (a
  // classified JSON-RPC response, `line` its bytes) to a forwarded call:
  // `line` itself when VALID, a withheld (isError) result when INVALID,
  // the path's error otherwise (tool_error for an error answer, with the
  // server's code; -32042/-32044 when the sidecar could not decide).
  std::string CheckResult(const RunRef& run, absl::string_view tool,
                          const Json& response, const std::string& id_key,
                          absl::string_view line) const;

 private:
  mesh::McpDecision DecideOnce(const RunRef& run, const mesh::McpRequest& call,
                               const std::string& id_key,
                               const std::string& approval_id) const;
  absl::StatusOr<RunRef> CreateAndOpen(const std::vector<Json>& tools) const;
  std::vector<std::string> Unpinnable(const std::vector<Json>& tools) const;
  // AwaitApproval until decided, expired, --await-approval or stopping.
  bool AwaitDecided(const RunRef& run, const std::string& approval_id) const;
  void PrintApprovalHint(absl::string_view tool, const std::string& id_key,
                         const std::string& approval_id) const;

  const client::ToolGateClient* client_;
  SidecarOptions options_;
  const std::atomic<bool>* stopping_;
  // The decider holds no state of its own: the gate's const calls may
  // share it between threads.
  std::unique_ptr<GrpcDecider> decider_;
  mesh::McpGate gate_;
};

}  // namespace mcp_proxy
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_MCP_PROXY_SIDECAR_H_
