// Starts the real toolgate binary on a free loopback port for a test, and
// stops it with SIGTERM (as Kubernetes does) when done.
#ifndef TOOLGATE_TESTS_TESTING_SERVER_PROCESS_H_
#define TOOLGATE_TESTS_TESTING_SERVER_PROCESS_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

namespace toolgate {
namespace testutil {

class RedisServer;

class ServerProcess {
 public:
  // `extra_flags` are passed after --listen, --port_file and
  // --drain_notice_ms=0 (a later flag overrides those). With `broken_stderr`,
  // the server's stderr is a pipe nobody reads from (its reader exited): every
  // write to it fails with EPIPE, as when `--audit_log=-` is piped into a
  // reader that died. With `stderr_path`, the server's stderr goes to that
  // file.
  //
  // With TOOLGATE_TEST_STATE_STORE=redis in the environment (the *_redis
  // test targets set it), the server keeps its state in a redis-server of
  // its own (started here, AOF on), unless `extra_flags` name a
  // --state_store: the same suite then runs against both stores.
  explicit ServerProcess(std::vector<std::string> extra_flags = {},
                         bool broken_stderr = false,
                         const std::string& stderr_path = "");
  ~ServerProcess();

  bool started() const { return port_ > 0; }
  std::string address() const;
  pid_t pid() const { return pid_; }

  // Sends SIGTERM and waits; returns the exit status (or -1).
  int Stop();
  // True while the process has not exited (reaps it if it has).
  bool Alive();

 private:
  std::unique_ptr<RedisServer> redis_;  // Started before, stopped after.
  pid_t pid_ = -1;
  int port_ = 0;
  std::string port_file_;
};

// Path of a file in the test's runfiles, e.g. "server/toolgate".
std::string Runfile(const std::string& path);

}  // namespace testutil
}  // namespace toolgate

#endif  // TOOLGATE_TESTS_TESTING_SERVER_PROCESS_H_
