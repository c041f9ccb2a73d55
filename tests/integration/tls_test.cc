// TLS and mTLS on the real binary, with certificates made at test time:
// who can talk to a TLS server, toolgatectl over TLS, and start-up refusing
// every bad file (never serving plaintext instead).
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "client/cli.h"
#include "client/health_check.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/testing/server_process.h"
#include "tests/testing/test_certs.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;
using testutil::ReadAll;
using testutil::ServerProcess;
using testutil::TestCerts;

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(certs_.ok()) << "openssl failed"; }

  std::vector<std::string> TlsFlags() const {
    return {"--tls_cert_file=" + certs_.Path("server.crt"),
            "--tls_key_file=" + certs_.Path("server.key")};
  }
  std::vector<std::string> MtlsFlags() const {
    std::vector<std::string> flags = TlsFlags();
    flags.push_back("--tls_client_ca_file=" + certs_.Path("ca.crt"));
    return flags;
  }

  // TLS credentials trusting our CA, presenting `client` ("client",
  // "other_client") or no certificate ("").
  std::shared_ptr<grpc::ChannelCredentials> Tls(const std::string& client) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = ReadAll(certs_.Path("ca.crt"));
    if (!client.empty()) {
      ssl.pem_cert_chain = ReadAll(certs_.Path(client + ".crt"));
      ssl.pem_private_key = ReadAll(certs_.Path(client + ".key"));
    }
    return grpc::SslCredentials(ssl);
  }

  TestCerts certs_;
};

// The health status over `creds`, or the RPC error code as a negative
// number (so a failure can never look like SERVING).
int Health(const std::string& address,
           const std::shared_ptr<grpc::ChannelCredentials>& creds) {
  auto status = client::CheckHealth(grpc::CreateChannel(address, creds), "",
                                    absl::Seconds(5));
  return status.ok() ? *status : -static_cast<int>(status.status().code());
}

constexpr char kAllowedCall[] =
    R"({"role":"assistant","tool_calls":[{"id":"1","type":"function",)"
    R"("function":{"name":"update_ticket","arguments":)"
    R"("{\"ticket_id\":\"TCK-004242\",\"priority\":\"urgent\"}"}}]})";

// One stateless decision over `creds`, against the embedded "tickets"
// snapshot.
grpc::Status ValidateOnce(
    const std::string& address,
    const std::shared_ptr<grpc::ChannelCredentials>& creds,
    v1::Decision* decision) {
  auto stub = v1::ToolGate::NewStub(grpc::CreateChannel(address, creds));
  const auto deadline =
      std::chrono::system_clock::now() + std::chrono::seconds(5);
  grpc::ClientContext get_ctx;
  get_ctx.set_deadline(deadline);
  v1::GetSnapshotRequest get;
  get.set_name("tickets");
  v1::GetSnapshotResponse snapshot;
  if (grpc::Status s = stub->GetSnapshot(&get_ctx, get, &snapshot); !s.ok()) {
    return s;
  }
  grpc::ClientContext ctx;
  ctx.set_deadline(deadline);
  v1::ValidateToolCallRequest req;
  req.set_snapshot_id(snapshot.snapshot_id());
  req.set_native_json(kAllowedCall);
  v1::ValidateToolCallResponse resp;
  grpc::Status s = stub->ValidateToolCall(&ctx, req, &resp);
  *decision = resp.decision();
  return s;
}

TEST_F(TlsTest, TlsServerAnswersTlsClientsOnly) {
  ServerProcess server(TlsFlags());
  ASSERT_TRUE(server.started());
  EXPECT_EQ(Health(server.address(), Tls("")), client::kHealthServing);
  v1::Decision verdict = v1::DECISION_UNSPECIFIED;
  ASSERT_TRUE(ValidateOnce(server.address(), Tls(""), &verdict).ok());
  EXPECT_EQ(verdict, v1::DECISION_ALLOW);
  // A plaintext client gets nothing: no fallback on the server side.
  EXPECT_EQ(Health(server.address(), grpc::InsecureChannelCredentials()),
            -static_cast<int>(absl::StatusCode::kUnavailable));
  EXPECT_FALSE(ValidateOnce(server.address(),
                            grpc::InsecureChannelCredentials(), &verdict)
                   .ok());
  // A client that trusts another CA refuses the server.
  grpc::SslCredentialsOptions other;
  other.pem_root_certs = ReadAll(certs_.Path("other_ca.crt"));
  EXPECT_NE(Health(server.address(), grpc::SslCredentials(other)),
            client::kHealthServing);
}

TEST_F(TlsTest, MtlsServerRequiresAClientCertificateFromItsCa) {
  ServerProcess server(MtlsFlags());
  ASSERT_TRUE(server.started());
  EXPECT_EQ(Health(server.address(), Tls("client")), client::kHealthServing);
  v1::Decision verdict = v1::DECISION_UNSPECIFIED;
  ASSERT_TRUE(ValidateOnce(server.address(), Tls("client"), &verdict).ok());
  EXPECT_EQ(verdict, v1::DECISION_ALLOW);
  // No client certificate, a certificate from another CA, plaintext: no
  // call gets through, not even health.
  for (const auto& creds :
       {Tls(""), Tls("other_client"), grpc::InsecureChannelCredentials()}) {
    EXPECT_LT(Health(server.address(), creds), 0);
    EXPECT_FALSE(ValidateOnce(server.address(), creds, &verdict).ok());
  }
}

// What toolgatectl prints and exits with.
struct CliResult {
  int code;
  std::string out, err;
};

CliResult Ctl(std::vector<std::string> args) {
  std::istringstream in;
  std::ostringstream out, err;
  const int code =
      client::RunCli(args, in, out, err, client::DefaultChannelFactory());
  return {code, out.str(), err.str()};
}

TEST_F(TlsTest, ToolgatectlHealthAndValidateOverTlsAndMtls) {
  const std::string call = certs_.Write("call.json", kAllowedCall);
  const std::string manifest = testutil::Runfile("schemas/tickets.openai.json");
  for (bool mtls : {false, true}) {
    SCOPED_TRACE(mtls ? "mTLS" : "TLS");
    ServerProcess server(mtls ? MtlsFlags() : TlsFlags());
    ASSERT_TRUE(server.started());
    std::vector<std::string> tls = {"--addr", server.address(), "--tls_ca_file",
                                    certs_.Path("ca.crt")};
    if (mtls) {
      tls.insert(tls.end(), {"--tls_cert_file", certs_.Path("client.crt"),
                             "--tls_key_file", certs_.Path("client.key")});
    }
    auto with = [&](std::vector<std::string> command) {
      command.insert(command.begin(), tls.begin(), tls.end());
      return command;
    };
    CliResult health = Ctl(with({"health"}));
    EXPECT_EQ(health.code, client::kExitOk) << health.err;
    CliResult created = Ctl(with({"create-snapshot", "--manifest", manifest}));
    ASSERT_EQ(created.code, client::kExitOk) << created.err;
    const std::string id =
        created.out.substr(created.out.find("sha256:"), 7 + 64);
    CliResult allowed =
        Ctl(with({"validate", "--snapshot", id, "--native", call}));
    EXPECT_EQ(allowed.code, client::kExitOk) << allowed.err;
    EXPECT_THAT(allowed.out, HasSubstr("DECISION_ALLOW"));
    // Without TLS flags toolgatectl speaks plaintext and gets no answer.
    CliResult plain = Ctl({"--addr", server.address(), "health"});
    EXPECT_EQ(plain.code, client::kExitError);
  }
}

TEST_F(TlsTest, ToolgatectlRefusesBadTlsFlagsBeforeDialing) {
  struct Case {
    std::vector<std::string> args;
    std::string err_has;
  } cases[] = {
      {{"--tls_cert_file", certs_.Path("client.crt"), "health"},
       "--tls_cert_file needs --tls_key_file"},
      {{"--tls_key_file", certs_.Path("client.key"), "health"},
       "--tls_key_file needs --tls_cert_file"},
      {{"--tls_ca_file", certs_.Path("nope.crt"), "health"},
       "--tls_ca_file: " + certs_.Path("nope.crt") + ": cannot read"},
      {{"--tls_cert_file", certs_.Path("client.crt"), "--tls_key_file",
        certs_.Path("server.key"), "health"},
       "--tls_key_file: " + certs_.Path("server.key") +
           ": is not the private key"},
  };
  for (const Case& c : cases) {
    CliResult r = Ctl(c.args);
    EXPECT_EQ(r.code, client::kExitError) << c.err_has;
    EXPECT_THAT(r.err, HasSubstr(c.err_has));
  }
}

// Runs the server binary to completion (it is expected to refuse to start),
// returning its exit status and what it printed.
CliResult RunServer(const std::vector<std::string>& flags) {
  // `timeout`: a server that wrongly starts must fail this test, not hang it.
  std::string command = "timeout 10 " + testutil::Runfile("server/toolgate") +
                        " --listen=127.0.0.1:0 --drain_notice_ms=0";
  for (const std::string& f : flags) command += " '" + f + "'";
  command += " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, "", ""};
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out, ""};
}

TEST_F(TlsTest, BadTlsFilesStopStartUpNamingTheFlag) {
  const std::string empty = certs_.Write("empty.pem", "");
  const std::string cert = "--tls_cert_file=" + certs_.Path("server.crt");
  const std::string key = "--tls_key_file=" + certs_.Path("server.key");
  struct Case {
    std::vector<std::string> flags;
    std::string message;
  } cases[] = {
      {{cert}, "--tls_cert_file needs --tls_key_file"},
      {{key}, "--tls_key_file needs --tls_cert_file"},
      {{"--tls_client_ca_file=" + certs_.Path("ca.crt")},
       "--tls_client_ca_file needs --tls_cert_file"},
      {{"--tls_cert_file=" + certs_.Path("missing.crt"), key},
       "--tls_cert_file: " + certs_.Path("missing.crt") + ": cannot read"},
      {{cert, "--tls_key_file=" + empty},
       "--tls_key_file: " + empty + ": is empty"},
      {{cert, "--tls_key_file=" + certs_.Path("client.key")},
       "is not the private key of the certificate in --tls_cert_file"},
      {{"--tls_cert_file=" + certs_.Path("server.key"), key},
       "--tls_cert_file: " + certs_.Path("server.key") +
           ": no PEM certificate in it"},
      {{cert, key, "--tls_client_ca_file=" + empty},
       "--tls_client_ca_file: " + empty + ": is empty"},
      {{cert, key, "--tls_client_ca_file=" + certs_.Path("ca.key")},
       "--tls_client_ca_file: " + certs_.Path("ca.key") +
           ": no PEM certificate in it"},
  };
  for (const Case& c : cases) {
    CliResult r = RunServer(c.flags);
    EXPECT_NE(r.code, 0) << c.message;
    EXPECT_THAT(r.out, HasSubstr(c.message));
    EXPECT_THAT(r.out, ::testing::Not(HasSubstr("serving")));
  }
}

// A port nothing listens on right now (bound and released).
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    return 0;
  }
  close(fd);
  return ntohs(addr.sin_port);
}

// Kubernetes `grpc:` probes cannot do TLS: --health_listen gives them a
// plaintext port that answers health and nothing else.
TEST_F(TlsTest, HealthListenServesPlaintextHealthOnly) {
  const int port = FreePort();
  ASSERT_GT(port, 0);
  const std::string health = "127.0.0.1:" + std::to_string(port);
  std::vector<std::string> flags = MtlsFlags();
  flags.push_back("--health_listen=" + health);
  ServerProcess server(flags);
  ASSERT_TRUE(server.started());
  EXPECT_EQ(Health(health, grpc::InsecureChannelCredentials()),
            client::kHealthServing);
  v1::Decision verdict = v1::DECISION_UNSPECIFIED;
  EXPECT_EQ(ValidateOnce(health, grpc::InsecureChannelCredentials(), &verdict)
                .error_code(),
            grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_LT(Health(server.address(), grpc::InsecureChannelCredentials()), 0);
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace toolgate
