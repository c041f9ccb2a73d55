// Command-line options of the toolgate sidecar.
#ifndef TOOLGATE_SERVER_OPTIONS_H_
#define TOOLGATE_SERVER_OPTIONS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/engine/engine.h"

namespace toolgate {
namespace server {

struct ServerOptions {
  std::string listen = "127.0.0.1:50051";  // host:port or unix:PATH.
  std::string manifests_dir;               // Empty: the embedded examples.
  std::string audit_log;                   // Empty: off; "-": stderr.
  std::string port_file;                   // Written with the bound port.
  EngineOptions engine;
  int shutdown_grace_seconds = 10;
  std::string admin_token_file;  // Empty: admin only on a local listener.
  bool snapshot_create_admin = true;  // --snapshot_create=admin|any.
};

// Parses --flag=value or --flag value. Unknown flags are an error: a typo
// in a limit must not silently leave the default in force.
absl::StatusOr<ServerOptions> ParseServerFlags(
    const std::vector<std::string>& args);

std::string ServerUsage();

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_OPTIONS_H_
