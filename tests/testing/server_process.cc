#include "tests/testing/server_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "tests/testing/redis_server.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
// gRPC's DNS resolver (c-ares, a system library built without ASan) keeps a
// few bytes per resolved name ("localhost" in the TLS tests) past exit;
// not ours to free. Every test that starts a server links this file.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libcares.so\n";
}
#endif
#endif

namespace toolgate {
namespace testutil {

std::string Runfile(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr) return path;
  return std::string(srcdir) + "/" + (workspace ? workspace : "toolgate") +
         "/" + path;
}

ServerProcess::ServerProcess(std::vector<std::string> extra_flags,
                             bool broken_stderr,
                             const std::string& stderr_path) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  port_file_ = std::string(tmp ? tmp : "/tmp") + "/toolgate_port." +
               std::to_string(getpid()) + "." +
               std::to_string(reinterpret_cast<uintptr_t>(this));
  std::remove(port_file_.c_str());
  const std::string binary = Runfile("server/toolgate");
  // No drain notice unless a test asks: most tests stop a quiet server.
  std::vector<std::string> args = {binary, "--listen=127.0.0.1:0",
                                   "--port_file=" + port_file_,
                                   "--drain_notice_ms=0"};
  args.insert(args.end(), extra_flags.begin(), extra_flags.end());
  const char* store = std::getenv("TOOLGATE_TEST_STATE_STORE");
  const bool named = std::any_of(
      extra_flags.begin(), extra_flags.end(), [](const std::string& f) {
        return f.rfind("--state_store=", 0) == 0;
      });
  if (store != nullptr && std::string(store) == "redis" && !named) {
    redis_ = std::make_unique<RedisServer>();
    if (!redis_->started()) return;
    args.push_back("--state_store=" + redis_->url());
  }
  int pipe_fds[2] = {-1, -1};
  if (broken_stderr && pipe(pipe_fds) != 0) return;
  pid_ = fork();
  if (pid_ == 0) {
    if (!stderr_path.empty()) {
      const int fd =
          open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (fd >= 0) dup2(fd, STDERR_FILENO);
    }
    if (broken_stderr) {
      dup2(pipe_fds[1], STDERR_FILENO);
      close(pipe_fds[0]);
      close(pipe_fds[1]);
    }
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  if (broken_stderr) {
    close(pipe_fds[0]);  // The reader is gone before the server writes.
    close(pipe_fds[1]);
  }
  // The port file appears once the server listens (manifests are loaded
  // before that, so a started server is a ready one).
  for (int i = 0; i < 300 && port_ == 0; ++i) {
    std::ifstream in(port_file_);
    if (!(in >> port_)) port_ = 0;
    if (port_ == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    int status = 0;
    if (port_ == 0 && waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
  }
}

ServerProcess::~ServerProcess() {
  Stop();
  redis_.reset();
}

std::string ServerProcess::address() const {
  return "127.0.0.1:" + std::to_string(port_);
}

bool ServerProcess::Alive() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

int ServerProcess::Stop() {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace testutil
}  // namespace toolgate
