#include "client/mcp_proxy/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

extern char** environ;

namespace toolgate {
namespace mcp_proxy {
namespace {

// `fds[i]` becomes the child's descriptor i.
absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv,
                            const int (&fds)[3]) {
  if (argv.empty()) return absl::InvalidArgumentError("no command to run");
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  for (int i = 0; i < 3; ++i) {
    posix_spawn_file_actions_adddup2(&actions, fds[i], i);
  }
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(),
                              environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot start ", argv[0], ": ", std::strerror(rc)));
  }
  return pid;
}

bool SetNonBlocking(int fd) {
  const int flags = fcntl(fd, F_GETFL);
  return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

}  // namespace

absl::StatusOr<ChildPipes> SpawnWithPipes(
    const std::vector<std::string>& argv) {
  int in[2], out[2];  // O_CLOEXEC: only the dup2'd copies reach the child.
  if (pipe2(in, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  absl::StatusOr<pid_t> pid = Spawn(argv, {in[0], out[1], 2});
  close(in[0]);
  close(out[1]);
  if (!pid.ok() || !SetNonBlocking(in[1]) || !SetNonBlocking(out[0])) {
    close(in[1]);
    close(out[0]);
    if (!pid.ok()) return pid.status();
    kill(*pid, SIGKILL);
    waitpid(*pid, nullptr, 0);
    return absl::InternalError("cannot make the child's pipes non-blocking");
  }
  return ChildPipes{*pid, in[1], out[0]};
}

absl::StatusOr<pid_t> SpawnQuiet(const std::vector<std::string>& argv) {
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0) {
    return absl::InternalError(
        absl::StrCat("/dev/null: ", std::strerror(errno)));
  }
  absl::StatusOr<pid_t> pid = Spawn(argv, {null_fd, 2, 2});
  close(null_fd);
  return pid;
}

int ExitCodeOf(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

}  // namespace mcp_proxy
}  // namespace toolgate
