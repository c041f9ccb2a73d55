// A real redis-server (Debian's) for a test: started on a free loopback
// port in a fresh directory under TEST_TMPDIR, with AOF on by default, and
// killed when the fixture goes. The fault tests use Kill, Restart (same
// port and directory, so AOF brings the data back), Pause and Resume
// (SIGSTOP / SIGCONT: a store that accepts connections and never answers).
#ifndef TOOLGATE_TESTS_TESTING_REDIS_SERVER_H_
#define TOOLGATE_TESTS_TESTING_REDIS_SERVER_H_

#include <sys/types.h>

#include <string>
#include <vector>

namespace toolgate {
namespace testutil {

struct RedisServerOptions {
  bool aof = true;
  std::string password;  // requirepass; empty: none.
  bool unix_socket = false;
  // TLS only (the plain port closed): PEM paths of the server's pair and
  // of the CA that signed it. With tls_client_cert_file/key_file, clients
  // must present a certificate that CA signed (redis-cli presents those).
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_ca_file;
  std::string tls_client_cert_file;
  std::string tls_client_key_file;
  std::vector<std::string> extra_args;  // e.g. {"--maxmemory", "2mb"}.
};

class RedisServer {
 public:
  explicit RedisServer(RedisServerOptions options = {});
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  bool started() const { return pid_ > 0; }
  int port() const { return port_; }
  const std::string& dir() const { return dir_; }
  // redis://127.0.0.1:PORT (rediss:// with TLS), or unix:///DIR/redis.sock.
  std::string url() const;
  std::string unix_url() const { return "unix://" + dir_ + "/redis.sock"; }

  // redis-cli's answer to one command (trimmed), "" when it failed.
  std::string Cli(const std::vector<std::string>& command) const;

  void Kill();     // SIGKILL, reaped.
  bool Restart();  // Kill (if running), then start again: same port, dir.
  void Pause();    // SIGSTOP
  void Resume();   // SIGCONT

 private:
  bool Start();
  std::vector<std::string> CliBase() const;

  RedisServerOptions options_;
  std::string dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

// A TCP port nothing listens on now (bound and released).
int FreeLoopbackPort();

}  // namespace testutil
}  // namespace toolgate

#endif  // TOOLGATE_TESTS_TESTING_REDIS_SERVER_H_
