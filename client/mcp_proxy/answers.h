// The JSON-RPC messages only the stdio gateway writes (the answers of
// decisions come from the MCP path, core/mesh/mcp_gate.h, as Envoy's):
// JSON-RPC's own errors for lines it cannot read, and the refusals of
// tools the pins refuse (rug pulls).
//
// Thread-safety: pure functions over values.
#ifndef TOOLGATE_CLIENT_MCP_PROXY_ANSWERS_H_
#define TOOLGATE_CLIENT_MCP_PROXY_ANSWERS_H_

#include <string>

#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"
#include "core/mesh/jsonrpc_error.h"

namespace toolgate {
namespace mcp_proxy {

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

}  // namespace mcp_proxy
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_MCP_PROXY_ANSWERS_H_
