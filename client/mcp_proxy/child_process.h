// Child processes of the gateway: the MCP server (its stdin and stdout are
// pipes the relay owns, its stderr is the proxy's) and the private sidecar.
//
// Children start with default signal dispositions and an empty signal
// mask (the proxy ignores SIGPIPE; a server must not inherit that), and
// inherit no descriptor of the proxy's but the three they are given.
//
// Thread-compatible: plain functions; the caller owns the descriptors.
#ifndef TOOLGATE_CLIENT_MCP_PROXY_CHILD_PROCESS_H_
#define TOOLGATE_CLIENT_MCP_PROXY_CHILD_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace toolgate {
namespace mcp_proxy {

struct ChildPipes {
  pid_t pid = -1;
  int to_child = -1;    // The child's stdin (write end, non-blocking).
  int from_child = -1;  // The child's stdout (read end, non-blocking).
};

// Starts argv[0] (searched on PATH when it has no "/") with its stdin and
// stdout on new pipes and the proxy's stderr.
absl::StatusOr<ChildPipes> SpawnWithPipes(const std::vector<std::string>& argv);

// Starts argv[0] with stdin /dev/null and stdout and stderr on the
// proxy's stderr (nothing it prints can reach the host's stdout).
absl::StatusOr<pid_t> SpawnQuiet(const std::vector<std::string>& argv);

// The exit status a shell would report: the code, or 128 + the signal.
int ExitCodeOf(int wait_status);

}  // namespace mcp_proxy
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_MCP_PROXY_CHILD_PROCESS_H_
