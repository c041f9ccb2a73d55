// Every file the server reads (manifests, TLS files, the admin token) is a
// regular file read up to its limit (issue 25). Through the real binary:
//  - at start-up, a FIFO, a directory, a socket, a device (a symlink to
//    /dev/urandom or /dev/zero) or an oversize file where a file is
//    expected fails the start at once, with a line naming the file and
//    what it is; before, a FIFO hung start-up and /dev/urandom grew the
//    process until the kernel killed it;
//  - on SIGHUP, such entries in --manifests are refused by name while the
//    other files reload and every loaded snapshot keeps serving; the
//    signal thread is free, so SIGTERM is acted on at once. Before, a FIFO
//    blocked the signal thread for good and /dev/urandom grew the process.
//
// The server runs with its stderr in a file (the lines are the contract)
// and, outside sanitizer builds, an address-space cap: the old behaviour
// dies of it instead of eating the machine.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/config.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/testing/server_process.h"
#include "tests/testing/test_certs.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;

std::string TmpDir() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return tmp != nullptr ? tmp : "/tmp";
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// Polls until `done`, about twenty seconds at most.
bool Eventually(const std::function<bool()>& done) {
  for (int i = 0; i < 400; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// The real binary with its stderr in a file.
class Server {
 public:
  Server(const std::string& name, std::vector<std::string> flags)
      : log_(TmpDir() + "/" + name + ".log"),
        port_file_(TmpDir() + "/" + name + ".port") {
    std::remove(log_.c_str());
    std::remove(port_file_.c_str());
    const std::string binary = testutil::Runfile("server/toolgate");
    std::vector<std::string> args = {binary, "--listen=127.0.0.1:0",
                                     "--port_file=" + port_file_,
                                     "--drain_notice_ms=0",
                                     "--shutdown_grace_seconds=1"};
    args.insert(args.end(), flags.begin(), flags.end());
    pid_ = fork();
    if (pid_ == 0) {
#if !defined(ABSL_HAVE_ADDRESS_SANITIZER) && !defined(ABSL_HAVE_THREAD_SANITIZER)
      // About 1.3 GB above what a started server maps (~0.7 GB, most of
      // it thread stacks and malloc arenas, not memory in use).
      const rlimit cap = {size_t{2} << 30, size_t{2} << 30};
      setrlimit(RLIMIT_AS, &cap);
#endif
      const int fd = open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(fd, STDERR_FILENO);
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(binary.c_str(), argv.data());
      _exit(127);
    }
  }
  ~Server() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  // Waits until the server listens (true) or exits (false).
  bool Started() {
    Eventually([&] {
      std::ifstream in(port_file_);
      if (in >> port_) return true;
      port_ = 0;
      return !Running();
    });
    return port_ > 0 && Running();
  }
  // Its exit code once it exited, within twenty seconds; -1 when it was
  // killed by a signal, -2 when it was still running (then it is killed).
  int Exit() {
    if (pid_ <= 0) return code_;
    if (!Eventually([&] { return !Running(); })) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
      return code_ = -2;
    }
    return code_;
  }
  bool Running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) != pid_) return true;
    pid_ = -1;
    code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return false;
  }
  int Stop() {
    if (pid_ > 0) kill(pid_, SIGTERM);
    return Exit();
  }
  void Signal(int sig) { kill(pid_, sig); }
  std::string Log() const { return ReadAll(log_); }
  std::string address() const {
    return "127.0.0.1:" + std::to_string(port_);
  }

 private:
  const std::string log_;
  const std::string port_file_;
  pid_t pid_ = -1;
  int port_ = 0;
  int code_ = -1;
};

std::string Tools(const std::string& name, const std::string& type) {
  return R"([{"type":"function","function":{"name":")" + name +
         R"(","parameters":{"type":"object","properties":{"v":{"type":")" +
         type + R"("}},"required":["v"]}}}])";
}

// A fresh directory under the test's temporary directory.
std::string Dir(const std::string& name) {
  const std::string dir = TmpDir() + "/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

void Write(const std::string& path, const std::string& content) {
  std::ofstream(path, std::ios::binary) << content;
}

// Bad entries of every kind; each returns what the log must say of it.
using Maker = std::function<std::string(const std::string& path)>;
struct Bad {
  std::string name;
  Maker make;
};

std::vector<Bad> BadEntries() {
  return {
      {"fifo",
       [](const std::string& p) {
         EXPECT_EQ(mkfifo(p.c_str(), 0600), 0);
         return p + ": is a FIFO, not a regular file";
       }},
      {"urandom",
       [](const std::string& p) {
         EXPECT_EQ(symlink("/dev/urandom", p.c_str()), 0);
         return p + ": is a character device, not a regular file";
       }},
      {"zero",
       [](const std::string& p) {
         EXPECT_EQ(symlink("/dev/zero", p.c_str()), 0);
         return p + ": is a character device, not a regular file";
       }},
      {"directory",
       [](const std::string& p) {
         EXPECT_TRUE(std::filesystem::create_directory(p));
         return p + ": is a directory, not a regular file";
       }},
      {"socket",
       [](const std::string& p) {
         // Bound by its name from its directory: the test's temporary
         // directory can be longer than a socket path may be.
         const std::filesystem::path path(p);
         const int cwd = open(".", O_RDONLY | O_DIRECTORY);
         EXPECT_EQ(chdir(path.parent_path().c_str()), 0);
         const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
         sockaddr_un addr{};
         addr.sun_family = AF_UNIX;
         path.filename().string().copy(addr.sun_path,
                                       sizeof(addr.sun_path) - 1);
         EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)),
                   0);
         close(fd);  // The socket file stays.
         EXPECT_EQ(fchdir(cwd), 0);
         close(cwd);
         return p + ": is a socket, not a regular file";
       }},
      {"huge sparse file",
       [](const std::string& p) {
         Write(p, "");
         EXPECT_EQ(truncate(p.c_str(), off_t{1} << 40), 0);
         return p + ": is larger than 200000 bytes";
       }},
      {"one byte over --max_input_bytes",
       [](const std::string& p) {
         Write(p, std::string(200001, ' '));
         return p + ": is larger than 200000 bytes";
       }},
  };
}

TEST(FileReads, BadManifestEntryFailsStartUpNamingIt) {
  int i = 0;
  for (const Bad& bad : BadEntries()) {
    const std::string dir = Dir("start" + std::to_string(i++));
    Write(dir + "/good.json", Tools("lookup", "string"));
    const std::string says = bad.make(dir + "/bad.json");
    Server server("start_" + std::to_string(i), {"--manifests=" + dir});
    EXPECT_EQ(server.Exit(), 1) << bad.name;
    EXPECT_THAT(server.Log(), HasSubstr("toolgate: " + says)) << bad.name;
  }
}

TEST(FileReads, BadTlsOrTokenFileFailsStartUpNamingIt) {
  testutil::TestCerts certs;
  ASSERT_TRUE(certs.ok());
  const std::string dir = Dir("flags");
  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string cert = "--tls_cert_file=" + certs.Path("server.crt");
  const std::string key = "--tls_key_file=" + certs.Path("server.key");
  struct Case {
    std::vector<std::string> flags;
    std::string says;
  } cases[] = {
      {{"--tls_cert_file=/dev/urandom", key},
       "--tls_cert_file: /dev/urandom: is a character device"},
      {{"--tls_cert_file=" + fifo, key}, "--tls_cert_file: " + fifo + ": is a FIFO"},
      {{cert, "--tls_key_file=/dev/zero"},
       "--tls_key_file: /dev/zero: is a character device"},
      {{cert, "--tls_key_file=" + fifo}, "--tls_key_file: " + fifo + ": is a FIFO"},
      {{cert, key, "--tls_client_ca_file=" + fifo},
       "--tls_client_ca_file: " + fifo + ": is a FIFO"},
      {{"--admin_token_file=" + fifo},
       "--admin_token_file: " + fifo + ": is a FIFO"},
      {{"--admin_token_file=/dev/urandom"},
       "--admin_token_file: /dev/urandom: is a character device"},
      {{"--admin_token_file=" + dir}, "--admin_token_file: " + dir +
                                          ": is a directory"},
  };
  int i = 0;
  for (const Case& c : cases) {
    Server server("flags_" + std::to_string(i++), c.flags);
    EXPECT_EQ(server.Exit(), 1) << c.says;
    EXPECT_THAT(server.Log(), HasSubstr(c.says));
  }
}

class Client {
 public:
  explicit Client(const std::string& address)
      : stub_(v1::ToolGate::NewStub(grpc::CreateChannel(
            address, grpc::InsecureChannelCredentials()))) {}
  std::string IdOf(const std::string& name) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::seconds(5));
    v1::GetSnapshotRequest req;
    req.set_name(name);
    v1::GetSnapshotResponse resp;
    return stub_->GetSnapshot(&ctx, req, &resp).ok() ? resp.snapshot_id() : "";
  }
  v1::Decision Validate(const std::string& snapshot, const std::string& tool,
                        const std::string& value) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::seconds(5));
    v1::ValidateToolCallRequest req;
    req.set_snapshot_id(snapshot);
    req.set_native_json(
        R"({"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":")" +
        tool + R"(","arguments":"{\"v\":)" + value + R"(}"}}]})");
    v1::ValidateToolCallResponse resp;
    return stub_->ValidateToolCall(&ctx, req, &resp).ok()
               ? resp.decision()
               : v1::DECISION_UNSPECIFIED;
  }

 private:
  std::unique_ptr<v1::ToolGate::Stub> stub_;
};

// SIGHUP with every kind of bad entry in --manifests, one of them where a
// loaded manifest was: each is refused by name, the good files reload, the
// replaced name keeps its snapshot, and SIGTERM still ends the server.
TEST(FileReads, ReloadRefusesBadEntriesAndKeepsServing) {
  const std::string dir = Dir("reload");
  Write(dir + "/crm.json", Tools("lookup", "string"));
  Write(dir + "/other.json", Tools("find", "string"));
  Server server("reload", {"--manifests=" + dir});
  ASSERT_TRUE(server.Started()) << server.Log();
  Client c(server.address());
  const std::string crm = c.IdOf("crm");
  const std::string other = c.IdOf("other");
  ASSERT_FALSE(crm.empty());
  ASSERT_FALSE(other.empty());

  std::vector<std::string> says;
  int i = 0;
  for (const Bad& bad : BadEntries()) {
    says.push_back(bad.make(dir + "/bad" + std::to_string(i++) + ".json"));
  }
  // A loaded manifest replaced by a device: its name keeps its snapshot.
  std::filesystem::remove(dir + "/crm.json");
  ASSERT_EQ(symlink("/dev/urandom", (dir + "/crm.json").c_str()), 0);
  says.push_back(dir + "/crm.json: is a character device, not a regular file;"
                       " \"crm\" keeps its previous snapshot");
  // A good file changed meanwhile is reloaded.
  Write(dir + "/other.json", Tools("find", "integer"));

  server.Signal(SIGHUP);
  ASSERT_TRUE(Eventually([&] { return c.IdOf("other") != other; }))
      << server.Log();
  for (const std::string& s : says) {
    EXPECT_TRUE(Eventually([&] {
      return server.Log().find("toolgate: reload: " + s) != std::string::npos;
    })) << s << "\n"
        << server.Log();
  }
  EXPECT_EQ(c.IdOf("crm"), crm);
  EXPECT_EQ(c.Validate(crm, "lookup", R"(\"x\")"), v1::DECISION_ALLOW);
  EXPECT_EQ(c.Validate(crm, "lookup", "7"), v1::DECISION_REJECT);
  EXPECT_EQ(c.Validate(c.IdOf("other"), "find", "7"), v1::DECISION_ALLOW);
  // Again: the signal thread is free, and nothing changed.
  server.Signal(SIGHUP);
  EXPECT_TRUE(Eventually([&] {
    std::string log = server.Log();
    size_t n = 0;
    for (size_t at = 0; (at = log.find("SIGHUP, reloading", at)) !=
                        std::string::npos;
         ++at) {
      ++n;
    }
    return n == 2;
  }));
  EXPECT_EQ(c.IdOf("crm"), crm);
  EXPECT_EQ(server.Stop(), 0) << server.Log();
}

}  // namespace
}  // namespace toolgate
