// The MCP decision path's decider (core/mesh/mcp_decider.h) for the stdio
// gateway: the proxy is a client of the sidecar, so every decision the
// path asks for is a toolgate.v1 RPC (ValidateToolCall, ValidateToolOutput)
// and the sidecar audits and counts it as any other (rpc="mcp.stdio" when
// the request carries mcp_request_id).
//
// Fail closed: an answer without a decision (DECISION_UNSPECIFIED, an
// unknown enum value, OUTPUT_VERDICT_UNSPECIFIED) is UNAVAILABLE, never
// read as one; the path turns every Status into a deny.
// RequiresApproval is UNIMPLEMENTED: the gateway decides one call per
// request, which the path then tells about the approval in any case.
//
// Thread-safety: thread-safe (the client's RPCs are).
#ifndef TOOLGATE_CLIENT_MCP_PROXY_GRPC_DECIDER_H_
#define TOOLGATE_CLIENT_MCP_PROXY_GRPC_DECIDER_H_

#include <string>
#include <vector>

#include "client/toolgate_client.h"
#include "core/mesh/mcp_decider.h"

namespace toolgate {
namespace mcp_proxy {

class GrpcDecider final : public mesh::McpDecider {
 public:
  // `client` is not owned and must outlive this.
  explicit GrpcDecider(const client::ToolGateClient* client)
      : client_(client) {}

  absl::StatusOr<ValidateCallResponse> ValidateToolCall(
      const ValidateCallRequest& request) override;
  absl::StatusOr<ValidateOutputResponse> ValidateToolOutput(
      const ValidateOutputRequest& request) override;
  absl::StatusOr<std::vector<bool>> RequiresApproval(
      absl::string_view snapshot_id,
      const std::vector<std::string>& tools) override;

 private:
  const client::ToolGateClient* const client_;
};

}  // namespace mcp_proxy
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_MCP_PROXY_GRPC_DECIDER_H_
