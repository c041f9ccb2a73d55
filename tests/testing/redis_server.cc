#include "tests/testing/redis_server.h"

#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>

namespace toolgate {
namespace testutil {
namespace {

std::string RunCapture(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe(fds) != 0) return "";
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  std::array<char, 4096> buf;
  ssize_t n;
  while ((n = read(fds[0], buf.data(), buf.size())) > 0) out.append(buf.data(), n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace

int FreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  close(fd);
  return port;
}

RedisServer::RedisServer(RedisServerOptions options)
    : options_(std::move(options)) {
  // A unix socket's path must fit in 108 bytes, which Bazel's TEST_TMPDIR
  // alone nearly fills: the directory goes under /tmp then (removed below).
  const char* tmp = getenv("TEST_TMPDIR");
  std::string base = tmp != nullptr && strlen(tmp) < 60 ? tmp : "/tmp";
  std::string pattern = base + "/toolgate-redis.XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) return;
  dir_ = pattern;
  port_ = FreeLoopbackPort();
  Start();
}

RedisServer::~RedisServer() {
  Kill();
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

std::string RedisServer::url() const {
  const bool tls = !options_.tls_cert_file.empty();
  return std::string(tls ? "rediss" : "redis") + "://127.0.0.1:" +
         std::to_string(port_);
}

std::vector<std::string> RedisServer::CliBase() const {
  std::vector<std::string> cli = {"redis-cli", "-h", "127.0.0.1", "-p",
                                  std::to_string(port_)};
  if (!options_.password.empty()) {
    cli.insert(cli.end(), {"--no-auth-warning", "-a", options_.password});
  }
  if (!options_.tls_cert_file.empty()) {
    cli.insert(cli.end(), {"--tls", "--cacert", options_.tls_ca_file});
    if (!options_.tls_client_cert_file.empty()) {
      cli.insert(cli.end(), {"--cert", options_.tls_client_cert_file, "--key",
                             options_.tls_client_key_file});
    }
  }
  return cli;
}

std::string RedisServer::Cli(const std::vector<std::string>& command) const {
  std::vector<std::string> argv = CliBase();
  argv.insert(argv.end(), command.begin(), command.end());
  return RunCapture(argv);
}

bool RedisServer::Start() {
  const bool tls = !options_.tls_cert_file.empty();
  std::vector<std::string> args = {
      "redis-server", "--bind", "127.0.0.1", "--dir", dir_, "--save", "",
      "--appendonly", options_.aof ? "yes" : "no", "--daemonize", "no",
      "--protected-mode", "no", "--logfile", dir_ + "/redis.log"};
  args.insert(args.end(), {"--port", tls ? "0" : std::to_string(port_)});
  if (tls) {
    args.insert(args.end(),
                {"--tls-port", std::to_string(port_), "--tls-cert-file",
                 options_.tls_cert_file, "--tls-key-file", options_.tls_key_file,
                 "--tls-ca-cert-file", options_.tls_ca_file, "--tls-auth-clients",
                 options_.tls_client_cert_file.empty() ? "no" : "yes"});
  }
  if (!options_.password.empty()) {
    args.insert(args.end(), {"--requirepass", options_.password});
  }
  if (options_.unix_socket) {
    args.insert(args.end(), {"--unixsocket", dir_ + "/redis.sock",
                             "--unixsocketperm", "700"});
  }
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
  pid_ = fork();
  if (pid_ == 0) {
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  for (int i = 0; i < 200; ++i) {
    const std::string pong = Cli({"PING"});
    if (pong == "PONG") return true;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  Kill();
  return false;
}

void RedisServer::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGCONT);
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

bool RedisServer::Restart() {
  Kill();
  return Start();
}

void RedisServer::Pause() {
  if (pid_ > 0) kill(pid_, SIGSTOP);
}

void RedisServer::Resume() {
  if (pid_ > 0) kill(pid_, SIGCONT);
}

}  // namespace testutil
}  // namespace toolgate
