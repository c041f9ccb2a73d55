// `toolgatectl mcp-proxy [flags] -- COMMAND [ARGS...]`: puts toolgate in
// front of an MCP server spoken to over stdio (docs/gateway.md).
//
// Starts COMMAND with its stdin and stdout on pipes, relays MCP's
// newline-delimited JSON-RPC between the proxy's own stdin/stdout (the
// host) and the server through a Session, and exits with the server's
// exit status. The sidecar is the one --addr names, or a private one it
// starts (private_sidecar.h). Errors before the server runs (flags, the
// policy file, no sidecar) exit 2 without starting it.
//
// Thread-compatible: runs once per process (it owns stdin, stdout and the
// signal handlers).
#ifndef TOOLGATE_CLIENT_MCP_PROXY_PROXY_COMMAND_H_
#define TOOLGATE_CLIENT_MCP_PROXY_PROXY_COMMAND_H_

#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "client/toolgate_client.h"
#include "grpcpp/grpcpp.h"

namespace toolgate {
namespace mcp_proxy {

struct McpProxyInvocation {
  std::vector<std::string> command_line;  // COMMAND [ARGS...]
  // The sidecar --addr named (address_given), reached through `client`
  // (not owned; its admin token is used for CreateSnapshot).
  bool address_given = false;
  std::string address;
  std::shared_ptr<grpc::ChannelInterface> channel;
  const client::ToolGateClient* client = nullptr;
  absl::Duration timeout = absl::Seconds(5);
  // toolgatectl's global flags as given, for the approval hint.
  std::vector<std::string> global_args;

  std::string tenant;
  std::string model;
  std::string policy_file;  // Empty: no policy.
  absl::Duration await_approval = absl::ZeroDuration();
  bool accept_tool_changes = false;
  bool hide_refused_tools = false;
  size_t max_message_bytes = size_t{4} << 20;
  std::string server_binary;
  std::vector<std::string> server_args;
};

// The proxy's exit status: the server's, or 2 when it could not start.
int RunMcpProxy(const McpProxyInvocation& invocation, std::ostream& err);

}  // namespace mcp_proxy
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_MCP_PROXY_PROXY_COMMAND_H_
