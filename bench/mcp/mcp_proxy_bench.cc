// What toolgatectl mcp-proxy adds to an MCP stdio session (bench/mcp/
// README.md): round trips of tools/call and of ping, sequential, through a
// direct stdio connection to a trivial server and through the proxy in
// front of the same server, and the sidecar's own ValidateToolCall round
// trip over the same unix socket with the same C++ client the proxy uses.
// Prints one JSON line per measurement: p50 and p99 in microseconds.
//
//   mcp_proxy_bench --ctl PATH --server PATH --mcp_server SCRIPT [--calls N]
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/mcp_proxy/child_process.h"
#include "client/health_check.h"
#include "client/mcp_proxy/private_sidecar.h"
#include "client/toolgate_client.h"

namespace toolgate {
namespace mcp_proxy {
namespace {

using Clock = std::chrono::steady_clock;

struct Peer {  // A process spoken to in lines, blocking.
  ChildPipes pipes;
  std::string buffer;

  bool Send(const std::string& line) {
    std::string data = line + "\n";
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = write(pipes.to_child, data.data() + done, data.size() - done);
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }
  std::string Receive() {
    while (true) {
      size_t nl = buffer.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer.substr(0, nl);
        buffer.erase(0, nl + 1);
        return line;
      }
      char chunk[65536];
      ssize_t n = read(pipes.from_child, chunk, sizeof(chunk));
      if (n <= 0) return "";
      buffer.append(chunk, static_cast<size_t>(n));
    }
  }
  void Stop() {
    close(pipes.to_child);
    close(pipes.from_child);
    int status = 0;
    waitpid(pipes.pid, &status, 0);
  }
};

void Blocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK); }

Peer Start(const std::vector<std::string>& argv) {
  absl::StatusOr<ChildPipes> pipes = SpawnWithPipes(argv);
  if (!pipes.ok()) {
    std::cerr << pipes.status() << "\n";
    std::exit(2);
  }
  Blocking(pipes->to_child);
  Blocking(pipes->from_child);
  Peer peer{*pipes, ""};
  peer.Send(R"({"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}})");
  peer.Receive();
  peer.Send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  return peer;
}

void Report(const std::string& name, std::vector<double> us) {
  std::sort(us.begin(), us.end());
  auto at = [&](double q) { return us[static_cast<size_t>(q * (us.size() - 1))]; };
  std::printf("{\"what\":\"%s\",\"calls\":%zu,\"p50_us\":%.1f,\"p99_us\":%.1f}\n",
              name.c_str(), us.size(), at(0.5), at(0.99));
  std::fflush(stdout);
}

std::vector<double> Time(int n, const std::function<bool(int)>& once) {
  std::vector<double> us;
  for (int i = 0; i < n; ++i) {
    const auto t0 = Clock::now();
    if (!once(i)) {
      std::cerr << "a round trip failed\n";
      std::exit(1);
    }
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  return us;
}

// tools/call and ping round trips; the answer must be the expected one.
void Session(const std::string& name, Peer peer, int n) {
  auto call = [&](int i) {
    peer.Send(absl::StrCat(R"({"jsonrpc":"2.0","id":)", i,
                           R"(,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}})"));
    return peer.Receive().find("\"text\": \"hi\"") != std::string::npos;
  };
  Time(200, call);  // Warm-up (and the proxy's pin).
  Report(name + " tools/call", Time(n, call));
  auto ping = [&](int i) {
    peer.Send(absl::StrCat(R"({"jsonrpc":"2.0","id":"p)", i, R"(","method":"ping"})"));
    return peer.Receive().find("\"result\"") != std::string::npos;
  };
  Time(200, ping);
  Report(name + " ping", Time(n, ping));
  peer.Stop();
}

// The floor of any RPC to the sidecar: a health check, which does no work.
void HealthFloor(const std::shared_ptr<grpc::Channel>& channel, int n) {
  auto check = [&](int) {
    absl::StatusOr<int> status =
        client::CheckHealth(channel, "", absl::Seconds(5));
    return status.ok() && *status == client::kHealthServing;
  };
  Time(200, check);
  Report("sidecar grpc.health.v1 Check", Time(n, check));
}

void SidecarOnly(const client::ToolGateClient& client, int n) {
  v1::CreateSnapshotRequest create;
  create.set_manifest_json(R"({"tools":[{"name":"echo","description":"Echo a text.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false},"annotations":{"readOnlyHint":true}}]})");
  auto snapshot = client.CreateSnapshot(create);
  v1::OpenRunRequest open;
  open.set_snapshot_id(snapshot->snapshot_id());
  auto run = client.OpenRun(open);
  if (!run.ok()) {
    std::cerr << run.status() << "\n";
    std::exit(2);
  }
  v1::ValidateToolCallRequest request;
  request.set_run_id(run->run_id());
  request.set_run_token(run->run_token());
  request.set_native_json(R"({"arguments":{"text":"hi"},"name":"echo"})");
  request.set_mcp_request_id("1");
  auto once = [&](int) {
    auto r = client.ValidateToolCall(request);
    return r.ok() && r->decision() == v1::DECISION_ALLOW;
  };
  Time(200, once);
  Report("sidecar ValidateToolCall", Time(n, once));
  v1::ValidateToolOutputRequest output;
  output.set_run_id(run->run_id());
  output.set_run_token(run->run_token());
  output.set_tool_name("echo");
  output.set_content_type("application/json");
  output.set_http_status(-1);
  output.set_body(R"({"content":[{"text":"hi","type":"text"}]})");
  output.set_mcp_request_id("1");
  auto check = [&](int) {
    auto r = client.ValidateToolOutput(output);
    return r.ok() && r->verdict() == v1::OUTPUT_VERDICT_VALID;
  };
  Time(200, check);
  Report("sidecar ValidateToolOutput", Time(n, check));
  auto both = [&](int i) { return once(i) && check(i); };
  Report("sidecar ValidateToolCall + ValidateToolOutput", Time(n, both));
}

int Main(int argc, char** argv) {
  std::string ctl, server, script;
  int n = 2000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--ctl") ctl = value;
    if (flag == "--server") server = value;
    if (flag == "--mcp_server") script = value;
    if (flag == "--calls") n = std::stoi(value);
  }
  signal(SIGPIPE, SIG_IGN);
  PrivateSidecarOptions options;
  options.server_binary = server;
  auto sidecar = PrivateSidecar::Start(options);
  if (!sidecar.ok()) {
    std::cerr << sidecar.status() << "\n";
    return 2;
  }
  client::ToolGateClientOptions client_options;
  client_options.admin_token = (*sidecar)->admin_token();
  const std::shared_ptr<grpc::Channel> channel = grpc::CreateChannel(
      (*sidecar)->address(), grpc::InsecureChannelCredentials());
  client::ToolGateClient client(channel, client_options);
  const std::vector<std::string> mcp = {"/usr/bin/python3", script};
  HealthFloor(channel, n);
  SidecarOnly(client, n);
  Session("direct", Start(mcp), n);
  std::vector<std::string> proxied = {ctl, "--addr", (*sidecar)->address(),
                                      "--admin_token_file",
                                      (*sidecar)->admin_token_file(),
                                      "mcp-proxy", "--"};
  proxied.insert(proxied.end(), mcp.begin(), mcp.end());
  Session("proxy", Start(proxied), n);
  return 0;
}

}  // namespace
}  // namespace mcp_proxy
}  // namespace toolgate

int main(int argc, char** argv) { return toolgate::mcp_proxy::Main(argc, argv); }
