// Issue 25, item 12: approving needs an approver credential on every
// listener. In the shipped sidecar layout (loopback, no token) the agent
// used to call DecideApproval on its own NEEDS_APPROVAL call and then run
// it, and ListApprovals showed every tenant's pending arguments. Each test
// starts its own server with the flags it needs.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/testing/server_process.h"
#include "tests/testing/test_certs.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testutil::ReadAll;
using testutil::ServerProcess;
using testutil::TestCerts;

constexpr char kToken[] = "approver-token-0123456789";
constexpr char kManifest[] = R"({"toolgate":"v1","tools":[
  {"name":"wire_money","side_effect":"destructive","input_schema":{
    "type":"object","properties":{"amount":{"type":"integer"}},
    "required":["amount"]},"policy":{"requires_approval":true}}]})";
constexpr char kWire[] = R"({"name":"wire_money","arguments":{"amount":5}})";

std::string TmpDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t ? t : "/tmp";
}

std::string TokenFile() {
  const std::string path = TmpDir() + "/approver_token";
  std::ofstream(path) << kToken << "\n";
  return path;
}

// One caller: the agent (a run token) or someone claiming to approve.
class Caller {
 public:
  explicit Caller(const std::string& target,
                  std::shared_ptr<grpc::ChannelCredentials> creds =
                      grpc::InsecureChannelCredentials())
      : stub_(v1::ToolGate::NewStub(grpc::CreateChannel(target, creds))) {}

  // A snapshot of kManifest and a run on it; the server's admin token is
  // `admin_token` (empty: none).
  void OpenRun(const std::string& admin_token) {
    grpc::ClientContext create_ctx;
    Authorize(&create_ctx, admin_token);
    v1::CreateSnapshotRequest create;
    create.set_manifest_json(kManifest);
    v1::CreateSnapshotResponse snapshot;
    ASSERT_TRUE(stub_->CreateSnapshot(&create_ctx, create, &snapshot).ok());
    grpc::ClientContext ctx;
    v1::OpenRunRequest req;
    req.set_snapshot_id(snapshot.snapshot_id());
    ASSERT_TRUE(stub_->OpenRun(&ctx, req, &run_).ok());
  }

  v1::ValidateToolCallResponse Validate(const std::string& approval_id = "") {
    grpc::ClientContext ctx;
    v1::ValidateToolCallRequest req;
    req.set_run_id(run_.run_id());
    req.set_run_token(run_.run_token());
    req.set_native_json(kWire);
    req.set_approval_id(approval_id);
    v1::ValidateToolCallResponse resp;
    EXPECT_TRUE(stub_->ValidateToolCall(&ctx, req, &resp).ok());
    return resp;
  }

  // `bearer` empty: no authorization metadata.
  grpc::Status Decide(const std::string& id, const std::string& bearer) {
    grpc::ClientContext ctx;
    Authorize(&ctx, bearer);
    v1::DecideApprovalRequest req;
    req.set_approval_id(id);
    req.set_approve(true);
    req.set_approver("the-agent-itself");
    v1::DecideApprovalResponse resp;
    return stub_->DecideApproval(&ctx, req, &resp);
  }

  grpc::Status List(const std::string& bearer, int* count = nullptr) {
    grpc::ClientContext ctx;
    Authorize(&ctx, bearer);
    v1::ListApprovalsResponse resp;
    grpc::Status s =
        stub_->ListApprovals(&ctx, v1::ListApprovalsRequest(), &resp);
    if (count != nullptr) *count = resp.approvals_size();
    return s;
  }

  v1::ApprovalState Await(const std::string& id) {
    grpc::ClientContext ctx;
    v1::AwaitApprovalRequest req;
    req.set_run_id(run_.run_id());
    req.set_run_token(run_.run_token());
    req.set_approval_id(id);
    req.set_timeout_ms(0);
    v1::AwaitApprovalResponse resp;
    EXPECT_TRUE(stub_->AwaitApproval(&ctx, req, &resp).ok());
    return resp.state();
  }

  const v1::OpenRunResponse& run() const { return run_; }

 private:
  static void Authorize(grpc::ClientContext* ctx, const std::string& bearer) {
    if (!bearer.empty()) ctx->AddMetadata("authorization", "Bearer " + bearer);
  }

  std::unique_ptr<v1::ToolGate::Stub> stub_;
  v1::OpenRunResponse run_;
};

// Where a test's server listens: loopback TCP or a unix socket.
struct Listener {
  std::string label;
  std::string flag;    // Empty: ServerProcess's loopback default.
  std::string target;  // Empty: the server's address.
};

std::vector<Listener> LocalListeners() {
  // Not under TEST_TMPDIR: a socket path has at most 107 bytes.
  const std::string sock =
      "/tmp/toolgate-approvals." + std::to_string(getpid()) + ".sock";
  return {{"loopback TCP", "", ""},
          {"unix socket", "--listen=unix:" + sock, "unix:" + sock}};
}

// The shipped sidecar layout before this fix: loopback, no token.
TEST(ApproverCredential, WithNoneConfiguredNobodyApprovesOnLocalListeners) {
  for (const Listener& where : LocalListeners()) {
    SCOPED_TRACE(where.label);
    const std::string log = TmpDir() + "/no_approver.log";
    std::vector<std::string> flags;
    if (!where.flag.empty()) flags.push_back(where.flag);
    ServerProcess server(flags, false, log);
    ASSERT_TRUE(server.started());
    {  // The channel closes before the server stops (a quicker drain).
      Caller agent(where.target.empty() ? server.address() : where.target);
      agent.OpenRun("");
      const v1::ValidateToolCallResponse asked = agent.Validate();
      ASSERT_EQ(asked.decision(), v1::DECISION_NEEDS_APPROVAL);
      for (const std::string& bearer :
           {std::string(), std::string("anything"), agent.run().run_token()}) {
        grpc::Status decide = agent.Decide(asked.approval_id(), bearer);
        EXPECT_EQ(decide.error_code(), grpc::StatusCode::PERMISSION_DENIED)
            << bearer;
        EXPECT_THAT(decide.error_message(), HasSubstr("nobody can approve"));
        EXPECT_EQ(agent.List(bearer).error_code(),
                  grpc::StatusCode::PERMISSION_DENIED);
      }
      // The call stays a deny; the agent can still wait on its approval.
      EXPECT_EQ(agent.Await(asked.approval_id()), v1::APPROVAL_STATE_PENDING);
      const v1::ValidateToolCallResponse again =
          agent.Validate(asked.approval_id());
      ASSERT_EQ(again.decision(), v1::DECISION_REJECT);
      EXPECT_EQ(again.violations(0).code(), "approval_pending");
    }
    EXPECT_EQ(server.Stop(), 0);
    if (!where.target.empty()) unlink(where.target.substr(5).c_str());
    EXPECT_THAT(ReadAll(log), HasSubstr("approvals: no approver credential "
                                        "configured"));
  }
}

TEST(ApproverCredential, AdminTokenRequiredOnLocalListenersToo) {
  const std::string token_file = TokenFile();
  for (const Listener& where : LocalListeners()) {
    SCOPED_TRACE(where.label);
    const std::string log = TmpDir() + "/token_approver.log";
    std::vector<std::string> flags = {"--admin_token_file=" + token_file};
    if (!where.flag.empty()) flags.push_back(where.flag);
    ServerProcess server(flags, false, log);
    ASSERT_TRUE(server.started());
    {  // The channel closes before the server stops (a quicker drain).
      Caller agent(where.target.empty() ? server.address() : where.target);
      agent.OpenRun(kToken);
      const v1::ValidateToolCallResponse asked = agent.Validate();
      ASSERT_EQ(asked.decision(), v1::DECISION_NEEDS_APPROVAL);
      // No token, a wrong one, a prefix of it, the run's token: refused.
      for (const std::string& bearer :
           {std::string(), std::string("approver-token-012345678"),
            std::string(kToken) + "x", agent.run().run_token()}) {
        EXPECT_EQ(agent.Decide(asked.approval_id(), bearer).error_code(),
                  grpc::StatusCode::UNAUTHENTICATED)
            << bearer;
        EXPECT_EQ(agent.List(bearer).error_code(),
                  grpc::StatusCode::UNAUTHENTICATED)
            << bearer;
      }
      EXPECT_EQ(agent.Validate(asked.approval_id()).violations(0).code(),
                "approval_pending");
      // The approver's token lists and decides; the call then runs once.
      int listed = 0;
      ASSERT_TRUE(agent.List(kToken, &listed).ok());
      EXPECT_EQ(listed, 1);
      ASSERT_TRUE(agent.Decide(asked.approval_id(), kToken).ok());
      EXPECT_EQ(agent.Validate(asked.approval_id()).decision(),
                v1::DECISION_ALLOW);
    }
    EXPECT_EQ(server.Stop(), 0);
    if (!where.target.empty()) unlink(where.target.substr(5).c_str());
    EXPECT_THAT(ReadAll(log), Not(HasSubstr("nobody can approve")));
  }
}

// With mTLS, a client certificate listed in --approver_identities approves;
// any other certificate the CA signed (an agent's) does not.
TEST(ApproverCredential, ListedClientCertificateApproves) {
  TestCerts certs;
  ASSERT_TRUE(certs.ok()) << "openssl failed";
  ServerProcess server({"--tls_cert_file=" + certs.Path("server.crt"),
                        "--tls_key_file=" + certs.Path("server.key"),
                        "--tls_client_ca_file=" + certs.Path("ca.crt"),
                        "--approver_identities=approver.example"});
  ASSERT_TRUE(server.started());
  auto creds = [&](const std::string& who) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = ReadAll(certs.Path("ca.crt"));
    ssl.pem_cert_chain = ReadAll(certs.Path(who + ".crt"));
    ssl.pem_private_key = ReadAll(certs.Path(who + ".key"));
    return grpc::SslCredentials(ssl);
  };
  const std::string target =
      "localhost:" + server.address().substr(server.address().rfind(':') + 1);
  Caller agent(target, creds("client"));
  agent.OpenRun("");
  const v1::ValidateToolCallResponse asked = agent.Validate();
  ASSERT_EQ(asked.decision(), v1::DECISION_NEEDS_APPROVAL);
  grpc::Status self = agent.Decide(asked.approval_id(), "");
  EXPECT_EQ(self.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(self.error_message(), HasSubstr("--approver_identities"));
  EXPECT_EQ(agent.List("").error_code(), grpc::StatusCode::PERMISSION_DENIED);
  Caller approver(target, creds("approver"));
  int listed = 0;
  ASSERT_TRUE(approver.List("", &listed).ok());
  EXPECT_EQ(listed, 1);
  ASSERT_TRUE(approver.Decide(asked.approval_id(), "").ok());
  EXPECT_EQ(agent.Validate(asked.approval_id()).decision(), v1::DECISION_ALLOW);
}

TEST(ApproverCredential, ApproverIdentitiesWithoutMtlsStopTheStart) {
  ServerProcess server({"--approver_identities=approver.example"});
  EXPECT_FALSE(server.started());
}

}  // namespace
}  // namespace toolgate
