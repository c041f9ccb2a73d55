#include "client/mcp_proxy/proxy_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <optional>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/health_check.h"
#include "client/mcp_proxy/child_process.h"
#include "client/mcp_proxy/private_sidecar.h"
#include "client/mcp_proxy/relay.h"
#include "client/mcp_proxy/session.h"
#include "client/mcp_proxy/sidecar.h"
#include "client/mcp_proxy/worker_pool.h"
#include "core/mesh/mcp_manifest.h"
#include "core/util/regular_file.h"

namespace toolgate {
namespace mcp_proxy {
namespace {

constexpr int kExitError = 2;
constexpr size_t kMaxPolicyBytes = 16 << 20;
// Workers for sidecar RPCs: enough for every approval wait to hold one.
constexpr size_t kMaxWorkers = 64;
constexpr size_t kMaxQueuedTasks = 4096;

std::string SelfPath() {
  char buffer[4096];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : "toolgatectl";
}

std::string RandomPrefix() {
  std::string raw(12, '\0');
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  urandom.read(raw.data(), static_cast<std::streamsize>(raw.size()));
  return absl::StrCat("toolgate-mcp-proxy-", absl::BytesToHexString(raw));
}

absl::StatusOr<mesh::McpPolicy> ReadPolicy(const std::string& path) {
  if (path.empty()) return mesh::McpPolicy();
  absl::StatusOr<std::string> text = ReadRegularFile(path, kMaxPolicyBytes);
  if (!text.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--policy: ", text.status().message()));
  }
  return mesh::ParseMcpPolicy(*text);
}

// Where decisions are asked, and the command an operator approves with.
struct SidecarLink {
  std::unique_ptr<PrivateSidecar> process;
  std::unique_ptr<client::ToolGateClient> owned;
  const client::ToolGateClient* client = nullptr;
  std::string approve_command;
};

absl::StatusOr<SidecarLink> Connect(const McpProxyInvocation& inv) {
  SidecarLink link;
  if (inv.address_given) {
    absl::StatusOr<int> health = client::CheckHealth(inv.channel, "",
                                                     inv.timeout);
    if (!health.ok() || *health != client::kHealthServing) {
      return absl::UnavailableError(absl::StrCat(
          "the sidecar at ", inv.address, " is not serving: ",
          health.ok() ? client::HealthStatusName(*health)
                      : health.status().ToString()));
    }
    link.client = inv.client;
    link.approve_command =
        absl::StrCat(SelfPath(), " ", absl::StrJoin(inv.global_args, " "),
                     " approvals decide");
    return link;
  }
  PrivateSidecarOptions options;
  options.server_binary = inv.server_binary;
  options.extra_args = inv.server_args;
  options.max_input_bytes = inv.max_message_bytes;
  absl::StatusOr<std::unique_ptr<PrivateSidecar>> started =
      PrivateSidecar::Start(options);
  if (!started.ok()) return started.status();
  link.process = *std::move(started);
  client::ToolGateClientOptions client_options;
  client_options.deadline = inv.timeout;
  client_options.admin_token = link.process->admin_token();
  link.owned = std::make_unique<client::ToolGateClient>(
      grpc::CreateChannel(link.process->address(),
                          grpc::InsecureChannelCredentials()),
      client_options);
  link.client = link.owned.get();
  link.approve_command = absl::StrCat(
      SelfPath(), " --addr ", link.process->address(), " --admin_token_file ",
      link.process->admin_token_file(), " approvals decide");
  return link;
}

}  // namespace

int RunMcpProxy(const McpProxyInvocation& inv, std::ostream& err) {
  auto fail = [&](const absl::Status& status) {
    err << "toolgatectl mcp-proxy: " << status.message() << "\n";
    return kExitError;
  };
  absl::StatusOr<mesh::McpPolicy> policy = ReadPolicy(inv.policy_file);
  if (!policy.ok()) return fail(policy.status());
  if (!Relay::InstallSignalHandlers()) {
    return fail(absl::InternalError("cannot install signal handlers"));
  }
  absl::StatusOr<SidecarLink> link = Connect(inv);
  if (!link.ok()) return fail(link.status());
  absl::StatusOr<ChildPipes> child = SpawnWithPipes(inv.command_line);
  if (!child.ok()) return fail(child.status());

  WorkerPool pool(kMaxWorkers, kMaxQueuedTasks);
  SidecarOptions sidecar_options;
  sidecar_options.tenant = inv.tenant;
  sidecar_options.model = inv.model;
  sidecar_options.policy = *std::move(policy);
  sidecar_options.await_approval = inv.await_approval;
  sidecar_options.approve_command = link->approve_command;
  const Sidecar sidecar(link->client, std::move(sidecar_options),
                        pool.stopping());
  Relay relay(STDIN_FILENO, STDOUT_FILENO, *child, inv.max_message_bytes);
  SessionOptions session_options;
  session_options.max_message_bytes = inv.max_message_bytes;
  session_options.hide_refused_tools = inv.hide_refused_tools;
  session_options.accept_tool_changes = inv.accept_tool_changes;
  session_options.own_id_prefix = RandomPrefix();
  int code;
  std::optional<RunRef> run;
  {
    Session session(session_options, &sidecar, &pool, &relay);
    code = relay.Run(&session, &pool);
    run = session.run();
    pool.Shutdown();  // No task may outlive the session or the sidecar.
  }
  if (run.has_value()) sidecar.CloseRun(*run);
  return code;
}

}  // namespace mcp_proxy
}  // namespace toolgate
