// The JSON-RPC messages the gateway writes itself: errors for refused
// calls (the codes and error.data of docs/mesh.md, built by
// core/mesh/jsonrpc_error.h from the sidecar's answers, so the stdio
// gateway and the Envoy hook say the same thing), JSON-RPC's own errors
// for messages it cannot read, and the tool result that stands in for a
// withheld (INVALID) one.
//
// Thread-safety: pure functions over values.
#ifndef TOOLGATE_CLIENT_MCP_PROXY_ANSWERS_H_
#define TOOLGATE_CLIENT_MCP_PROXY_ANSWERS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"
#include "core/mesh/jsonrpc_error.h"
#include "toolgate/v1/toolgate.pb.h"

namespace toolgate {
namespace mcp_proxy {

// A decision other than ALLOW: -32602 (REJECT), -32040 (NEEDS_APPROVAL),
// -32041 (STOP). DECISION_UNSPECIFIED is -32044: no decision is no allow.
mesh::RpcError DecisionError(const v1::ValidateToolCallResponse& response);

// A failed RPC: a run the sidecar does not know (or no longer: restarted,
// closed, expired) or a credential it refuses is -32042 run_rejected;
// anything else (unreachable, deadline, overload) -32044.
mesh::RpcError StatusError(const absl::Status& status);

// JSON-RPC's own errors (-32700 parse error, -32600 invalid request,
// -32602 invalid params), with error.data {decision: DENY, reason}.
mesh::RpcError ProtocolError(int code, absl::string_view reason,
                             absl::string_view detail);

// A tool the pins refuse: -32042 with reason `reason`
// (tool_definition_changed, tool_not_pinned, ...) and data.tool.
mesh::RpcError ToolRefusedError(absl::string_view tool,
                                absl::string_view reason,
                                absl::string_view change,
                                absl::string_view detail);

// {"jsonrpc":"2.0","id":id,"error":...} as one line (no "\n").
std::string ErrorLine(const Json& id, const mesh::RpcError& error);

// The result the host gets instead of an INVALID one: isError true, a
// text naming the tool and the violations (codes and pointers, never the
// tool's content), and the mesh's error data under
// _meta["dev.toolgate/output"].
std::string WithheldResultLine(const Json& id, absl::string_view tool,
                               const v1::ValidateToolOutputResponse& response);

}  // namespace mcp_proxy
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_MCP_PROXY_ANSWERS_H_
