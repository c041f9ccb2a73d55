#include "client/mcp_proxy/private_sidecar.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/health_check.h"
#include "client/mcp_proxy/child_process.h"
#include "grpcpp/grpcpp.h"

namespace toolgate {
namespace mcp_proxy {
namespace {

bool Executable(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         access(path.c_str(), X_OK) == 0;
}

std::string SelfDir() {
  char buffer[4096];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0) return "";
  std::string path(buffer, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/'));
}

absl::StatusOr<std::string> RandomHex(size_t bytes) {
  std::string raw(bytes, '\0');
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  if (!urandom.read(raw.data(), static_cast<std::streamsize>(bytes))) {
    return absl::InternalError("cannot read /dev/urandom");
  }
  return absl::BytesToHexString(raw);
}

absl::Status WriteSecret(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                      0600);
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot create ", path, ": ", std::strerror(errno)));
  }
  const bool ok = write(fd, text.data(), text.size()) ==
                  static_cast<ssize_t>(text.size());
  close(fd);
  return ok ? absl::OkStatus()
            : absl::InternalError(absl::StrCat("cannot write ", path));
}

// A short private directory: unix socket paths hold at most 107 bytes.
absl::StatusOr<std::string> MakePrivateDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string base = tmp != nullptr && tmp[0] == '/' ? tmp : "/tmp";
  if (base.size() > 60) base = "/tmp";
  std::string templ = base + "/toolgate-mcp-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) {
    return absl::InternalError(absl::StrCat(
        "cannot create a private directory in ", base, ": ",
        std::strerror(errno)));
  }
  return templ;
}

}  // namespace

absl::StatusOr<std::string> FindServerBinary(const std::string& flag) {
  if (!flag.empty()) {
    if (Executable(flag)) return flag;
    return absl::InvalidArgumentError(
        absl::StrCat("--server_binary ", flag, " is not an executable file"));
  }
  const std::string self = SelfDir();
  if (!self.empty()) {
    for (const char* relative : {"/toolgate", "/../server/toolgate"}) {
      if (Executable(self + relative)) return self + relative;
    }
  }
  const char* path = std::getenv("PATH");
  for (absl::string_view dir :
       absl::StrSplit(path == nullptr ? "" : path, ':', absl::SkipEmpty())) {
    const std::string candidate = absl::StrCat(dir, "/toolgate");
    if (Executable(candidate)) return candidate;
  }
  return absl::NotFoundError(
      "no toolgate binary beside toolgatectl or on PATH: give --addr of a "
      "running sidecar, or --server_binary");
}

absl::StatusOr<std::unique_ptr<PrivateSidecar>> PrivateSidecar::Start(
    const PrivateSidecarOptions& options) {
  std::unique_ptr<PrivateSidecar> sidecar(new PrivateSidecar());
  absl::StatusOr<std::string> binary = FindServerBinary(options.server_binary);
  if (!binary.ok()) return binary.status();
  sidecar->binary_ = *binary;
  if (absl::Status s = sidecar->Launch(options); !s.ok()) return s;
  if (absl::Status s = sidecar->WaitServing(options.start_timeout); !s.ok()) {
    return s;
  }
  return sidecar;
}

absl::Status PrivateSidecar::Launch(const PrivateSidecarOptions& options) {
  absl::StatusOr<std::string> dir = MakePrivateDir();
  if (!dir.ok()) return dir.status();
  dir_ = *dir;
  absl::StatusOr<std::string> token = RandomHex(32);
  if (!token.ok()) return token.status();
  token_ = *token;
  token_file_ = dir_ + "/admin_token";
  if (absl::Status s = WriteSecret(token_file_, token_); !s.ok()) return s;
  address_ = absl::StrCat("unix:", dir_, "/toolgate.sock");
  std::vector<std::string> argv = {
      binary_,
      absl::StrCat("--listen=", address_),
      absl::StrCat("--admin_token_file=", token_file_),
      absl::StrCat("--max_input_bytes=", options.max_input_bytes),
      // A desktop session may sit idle for hours; its run must not expire.
      "--run_idle_ttl_seconds=2592000",
      "--drain_notice_ms=0",
      "--shutdown_grace_seconds=2"};
  argv.insert(argv.end(), options.extra_args.begin(), options.extra_args.end());
  absl::StatusOr<pid_t> pid = SpawnQuiet(argv);
  if (!pid.ok()) return pid.status();
  pid_ = *pid;
  return absl::OkStatus();
}

absl::Status PrivateSidecar::WaitServing(absl::Duration timeout) {
  auto channel =
      grpc::CreateChannel(address_, grpc::InsecureChannelCredentials());
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return absl::FailedPreconditionError(absl::StrCat(
          binary_, " exited (status ", ExitCodeOf(status),
          ") before serving; its stderr says why"));
    }
    absl::StatusOr<int> health =
        client::CheckHealth(channel, "", absl::Milliseconds(500));
    if (health.ok() && *health == client::kHealthServing) {
      return absl::OkStatus();
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
  return absl::DeadlineExceededError(absl::StrCat(
      binary_, " did not serve on ", address_, " within ",
      absl::FormatDuration(timeout)));
}

PrivateSidecar::~PrivateSidecar() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    const absl::Time deadline = absl::Now() + absl::Seconds(5);
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (absl::Now() >= deadline) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        break;
      }
      absl::SleepFor(absl::Milliseconds(10));
    }
  }
  if (!dir_.empty()) {
    unlink(token_file_.c_str());
    unlink((dir_ + "/toolgate.sock").c_str());
    rmdir(dir_.c_str());
  }
}

}  // namespace mcp_proxy
}  // namespace toolgate
