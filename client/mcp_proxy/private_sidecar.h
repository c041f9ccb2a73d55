// The sidecar mcp-proxy starts for itself when no --addr is given, so a
// desktop user needs no daemon: the `toolgate` binary (--server_binary;
// else beside toolgatectl, or at ../server/toolgate as in bazel-bin; else
// on PATH) serving a unix socket in a private directory (mode 0700, under
// $TMPDIR or /tmp), with an admin token generated into a file there
// (0600) for CreateSnapshot and for the operator who decides approvals.
// Stopped with SIGTERM (SIGKILL after 5 s) and its directory removed when
// this object is destroyed.
//
// Thread-compatible.
#ifndef TOOLGATE_CLIENT_MCP_PROXY_PRIVATE_SIDECAR_H_
#define TOOLGATE_CLIENT_MCP_PROXY_PRIVATE_SIDECAR_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace toolgate {
namespace mcp_proxy {

struct PrivateSidecarOptions {
  std::string server_binary;  // Empty: looked for as above.
  // Flags appended to the sidecar's command line (--server_arg).
  std::vector<std::string> extra_args;
  size_t max_input_bytes = size_t{4} << 20;
  absl::Duration start_timeout = absl::Seconds(20);
};

class PrivateSidecar {
 public:
  // Starts it and waits until its health check says SERVING.
  static absl::StatusOr<std::unique_ptr<PrivateSidecar>> Start(
      const PrivateSidecarOptions& options);
  ~PrivateSidecar();

  const std::string& address() const { return address_; }  // unix:PATH
  const std::string& admin_token() const { return token_; }
  const std::string& admin_token_file() const { return token_file_; }

 private:
  PrivateSidecar() = default;
  absl::Status Launch(const PrivateSidecarOptions& options);
  absl::Status WaitServing(absl::Duration timeout);

  std::string dir_;
  std::string address_;
  std::string token_;
  std::string token_file_;
  std::string binary_;
  pid_t pid_ = -1;
};

// The toolgate binary to start, per the order above.
absl::StatusOr<std::string> FindServerBinary(const std::string& flag);

}  // namespace mcp_proxy
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_MCP_PROXY_PRIVATE_SIDECAR_H_
