#include "client/mcp_proxy/relay.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>
#include <vector>

#include "absl/strings/str_cat.h"

namespace toolgate {
namespace mcp_proxy {
namespace {

// After the server exits: how long its last answers (still being checked)
// and their delivery to the host may take.
constexpr absl::Duration kExitGrace = absl::Seconds(5);
// Error answers to a server's junk are dropped past this much unread.
constexpr size_t kAdvisoryLimit = 64 << 10;
constexpr size_t kReadBytes = 64 << 10;
// Server answers held while the sidecar checks them: past this the server
// is not read until some are done.
constexpr size_t kMaxCheckingBytes = size_t{64} << 20;

int signal_pipe[2] = {-1, -1};

void OnSignal(int sig) {
  const int saved = errno;
  const char byte = static_cast<char>(sig);
  (void)!write(signal_pipe[1], &byte, 1);
  errno = saved;
}

void SetNonBlocking(int fd) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

}  // namespace

bool Relay::InstallSignalHandlers() {
  if (signal_pipe[0] >= 0) return true;
  if (pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return false;
  struct sigaction action = {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGCHLD}) {
    sigaction(sig, &action, nullptr);
  }
  signal(SIGPIPE, SIG_IGN);  // A peer that went away is an EPIPE.
  return true;
}

Relay::Relay(int host_in, int host_out, ChildPipes child,
             size_t max_line_bytes)
    : host_in_(host_in),
      child_pid_(child.pid),
      high_water_(max_line_bytes + kReadBytes),
      from_server_(child.from_child),
      host_lines_(max_line_bytes),
      server_lines_(max_line_bytes) {
  to_host_.fd = host_out;
  to_server_.fd = child.to_child;
  SetNonBlocking(host_in);
  SetNonBlocking(host_out);
}

Relay::~Relay() {
  if (to_server_.fd >= 0) close(to_server_.fd);
  if (from_server_ >= 0) close(from_server_);
}

void Relay::Log(absl::string_view text) {
  std::cerr << "toolgatectl mcp-proxy: " << text << "\n" << std::flush;
}

// Writes at once when nothing is queued (no copy on the common path).
void Relay::ToHost(absl::string_view line) {
  Out& out = to_host_;
  if (out.broken) return;
  size_t written = 0;
  if (out.pending() == 0) {
    out.buffer.clear();
    out.offset = 0;
    iovec parts[2] = {{const_cast<char*>(line.data()), line.size()},
                      {const_cast<char*>("\n"), 1}};
    const ssize_t n = writev(out.fd, parts, 2);
    if (n > 0) written = static_cast<size_t>(n);
  }
  if (written == line.size() + 1) return;
  if (written < line.size()) {
    out.buffer.append(line.data() + written, line.size() - written);
  }
  out.buffer.push_back('\n');
}

void Relay::ToServer(absl::string_view line, bool advisory) {
  Out& out = to_server_;
  if (out.broken || out.fd < 0) return;
  if (advisory && out.pending() > kAdvisoryLimit) return;
  size_t written = 0;
  if (out.pending() == 0) {
    out.buffer.clear();
    out.offset = 0;
    iovec parts[2] = {{const_cast<char*>(line.data()), line.size()},
                      {const_cast<char*>("\n"), 1}};
    const ssize_t n = writev(out.fd, parts, 2);
    if (n > 0) written = static_cast<size_t>(n);
  }
  if (written == line.size() + 1) return;
  if (written < line.size()) {
    out.buffer.append(line.data() + written, line.size() - written);
  }
  out.buffer.push_back('\n');
}

void Relay::Flush(Out* out, bool to_host) {
  while (out->pending() > 0 && !out->broken && out->fd >= 0) {
    const ssize_t n = write(out->fd, out->buffer.data() + out->offset,
                            out->pending());
    if (n > 0) {
      out->offset += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
    out->broken = true;
    out->buffer.clear();
    out->offset = 0;
    if (to_host && !child_exited_) {
      Log("the host stopped reading (stdout closed): stopping the server");
      kill(child_pid_, SIGTERM);
    }
  }
  if (out->pending() == 0) {
    out->buffer.clear();
    out->offset = 0;
  } else if (out->offset > (size_t{1} << 20)) {
    out->buffer.erase(0, out->offset);
    out->offset = 0;
  }
}

void Relay::Signals() {
  char signals[64];
  ssize_t n;
  while ((n = read(signal_pipe[0], signals, sizeof(signals))) > 0) {
    for (ssize_t i = 0; i < n; ++i) {
      const int sig = signals[i];
      if (sig != SIGCHLD) {
        if (!child_exited_) kill(child_pid_, sig);
        continue;
      }
      int status = 0;
      if (!child_exited_ && waitpid(child_pid_, &status, WNOHANG) == child_pid_) {
        child_exited_ = true;
        child_status_ = status;
        exited_at_ = absl::Now();
      }
    }
  }
}

bool Relay::ReadFrom(int fd, LineReader* reader, bool from_host) {
  char buffer[kReadBytes];
  const ssize_t n = read(fd, buffer, sizeof(buffer));
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
  if (n <= 0) {
    if (reader->Finish()) {
      Log(from_host ? "the host's input ended inside a line; dropped"
                    : "the server's output ended inside a line; dropped");
    }
    return false;
  }
  reader->Feed(
      absl::string_view(buffer, static_cast<size_t>(n)),
      [&](absl::string_view line) {
        from_host ? session_->FromHost(line) : session_->FromServer(line);
      },
      [&] {
        from_host ? session_->HostLineTooLong() : session_->ServerLineTooLong();
      });
  return true;
}

bool Relay::Finished(WorkerPool* pool) {
  if (!child_exited_) return false;
  if (absl::Now() >= exited_at_ + kExitGrace) return true;
  return server_eof_ && pool->in_flight() == 0 &&
         (to_host_.pending() == 0 || to_host_.broken);
}

int Relay::Run(Session* session, WorkerPool* pool) {
  session_ = session;
  Signals();  // A child that died before the loop began.
  // A SIGCHLD may have come before the handler saw a pid to wait for.
  int status = 0;
  if (waitpid(child_pid_, &status, WNOHANG) == child_pid_) {
    child_exited_ = true;
    child_status_ = status;
    exited_at_ = absl::Now();
  }
  while (!Finished(pool)) {
    if (!PollOnce(pool)) break;
  }
  return ExitCodeOf(child_status_);
}

// What to wait for: reading a side only while the buffers it feeds have
// room, writing only what is queued.
bool Relay::PollOnce(WorkerPool* pool) {
  std::vector<pollfd> fds;
  auto add = [&](int fd, short events) {
    fds.push_back({fd, events, 0});
    return fds.size() - 1;
  };
  const size_t sig = add(signal_pipe[0], POLLIN);
  const size_t wake = add(pool->wake_fd(), POLLIN);
  const bool room = to_host_.pending() < high_water_;
  const size_t host_in =
      !host_eof_ && room && to_server_.pending() < high_water_
          ? add(host_in_, POLLIN)
          : SIZE_MAX;
  const size_t server_out =
      !server_eof_ && room && session_->checking_bytes() < kMaxCheckingBytes
          ? add(from_server_, POLLIN)
          : SIZE_MAX;
  if (to_host_.pending() > 0 && !to_host_.broken) add(to_host_.fd, POLLOUT);
  if (to_server_.pending() > 0 && !to_server_.broken && to_server_.fd >= 0) {
    add(to_server_.fd, POLLOUT);
  }
  if (poll(fds.data(), fds.size(), TimeoutMs()) < 0 && errno != EINTR) {
    return false;
  }
  if (fds[sig].revents != 0) Signals();
  if (fds[wake].revents != 0) pool->RunCompletions();
  if (host_in != SIZE_MAX && fds[host_in].revents != 0 &&
      !ReadFrom(host_in_, &host_lines_, true)) {
    host_eof_ = true;
  }
  if (server_out != SIZE_MAX && fds[server_out].revents != 0 &&
      !ReadFrom(from_server_, &server_lines_, false)) {
    server_eof_ = true;
  }
  session_->Tick(absl::Now());
  Flush(&to_host_, true);
  Flush(&to_server_, false);
  // The host is done sending: so is the server's input, once written.
  if (host_eof_ && to_server_.fd >= 0 && to_server_.pending() == 0) {
    close(to_server_.fd);
    to_server_.fd = -1;
  }
  return true;
}

int Relay::TimeoutMs() const {
  absl::Time until = exited_at_ + kExitGrace;
  if (auto next = session_->NextDeadline()) until = std::min(until, *next);
  if (until == absl::InfiniteFuture()) return -1;
  return static_cast<int>(std::max<int64_t>(
      0, absl::ToInt64Milliseconds(until - absl::Now()) + 1));
}

}  // namespace mcp_proxy
}  // namespace toolgate
