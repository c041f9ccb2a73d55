// The gateway's I/O: one thread polling the host's stdin and stdout, the
// MCP server's stdin and stdout, the worker pool's completions and the
// signals, moving newline-delimited lines through a Session.
//
// Writes never block: each direction has a buffer, and a peer that does
// not read stops the proxy reading from the other side (its input waits
// in the pipe), so memory stays bounded by the buffers (about two
// messages each) whatever either side does. SIGTERM, SIGINT and SIGHUP
// are passed to the server; the host closing stdin closes the server's;
// the host closing stdout (it went away) terminates the server. The relay
// ends when the server has exited and its output is read, and returns the
// server's exit status as a shell reports it.
//
// Thread-compatible: Run on one thread; the Sink methods are for the
// Session, on that thread.
#ifndef TOOLGATE_CLIENT_MCP_PROXY_RELAY_H_
#define TOOLGATE_CLIENT_MCP_PROXY_RELAY_H_

#include <string>

#include "absl/time/time.h"
#include "client/mcp_proxy/child_process.h"
#include "client/mcp_proxy/line_reader.h"
#include "client/mcp_proxy/session.h"
#include "client/mcp_proxy/worker_pool.h"

namespace toolgate {
namespace mcp_proxy {

class Relay : public Sink {
 public:
  // Takes the descriptors in `child` (closes them); host_in and host_out
  // are made non-blocking.
  Relay(int host_in, int host_out, ChildPipes child, size_t max_line_bytes);
  ~Relay() override;

  // Installs the signal handlers (once per process).
  static bool InstallSignalHandlers();

  int Run(Session* session, WorkerPool* pool);

  void ToHost(absl::string_view line) override;
  void ToServer(absl::string_view line, bool advisory) override;
  void Log(absl::string_view text) override;

 private:
  struct Out {
    int fd = -1;
    std::string buffer;
    size_t offset = 0;  // Bytes of buffer already written.
    bool broken = false;
    size_t pending() const { return buffer.size() - offset; }
  };
  void Signals();
  bool ReadFrom(int fd, LineReader* reader, bool from_host);
  void Flush(Out* out, bool to_host);
  bool Finished(WorkerPool* pool);
  // One poll and what it found; false when poll itself failed.
  bool PollOnce(WorkerPool* pool);
  int TimeoutMs() const;

  const int host_in_;
  const pid_t child_pid_;
  const size_t high_water_;
  Out to_host_;
  Out to_server_;
  int from_server_ = -1;
  LineReader host_lines_;
  LineReader server_lines_;
  Session* session_ = nullptr;
  bool host_eof_ = false;
  bool server_eof_ = false;
  bool child_exited_ = false;
  int child_status_ = 0;
  absl::Time exited_at_ = absl::InfiniteFuture();
};

}  // namespace mcp_proxy
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_MCP_PROXY_RELAY_H_
