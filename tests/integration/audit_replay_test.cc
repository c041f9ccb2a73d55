// The audit trail and replay through the real server and toolgatectl, as
// an operator uses them: every decision is on disk before its answer, with
// payloads a later replay decides again against a changed snapshot; and
// under --audit_required an unwritable trail withholds every decision.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "client/cli.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testing/server_process.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace {

using Json = nlohmann::json;
using testutil::ServerProcess;

constexpr char kIdIsInteger[] = R"([{"name":"lookup","input_schema":{
  "type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}}])";
constexpr char kIdIsString[] = R"([{"name":"lookup","input_schema":{
  "type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}])";

std::string TmpPath(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
}

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = TmpPath(name);
  std::ofstream(path) << text;
  return path;
}

std::string Call(const std::string& id) {
  return R"({"role":"assistant","content":[{"type":"tool_use","id":"t",)"
         R"("name":"lookup","input":{"id":)" +
         id + "}}]}";
}

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

class Client {
 public:
  explicit Client(const std::string& address)
      : stub_(v1::ToolGate::NewStub(grpc::CreateChannel(
            address, grpc::InsecureChannelCredentials()))) {}

  std::string Create(const std::string& manifest) {
    grpc::ClientContext ctx;
    v1::CreateSnapshotRequest req;
    req.set_manifest_json(manifest);
    v1::CreateSnapshotResponse resp;
    grpc::Status s = stub_->CreateSnapshot(&ctx, req, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp.snapshot_id();
  }

  grpc::Status Validate(const std::string& snapshot, const std::string& call,
                        v1::ValidateToolCallResponse* resp) {
    grpc::ClientContext ctx;
    v1::ValidateToolCallRequest req;
    req.set_snapshot_id(snapshot);
    req.set_native_json(call);
    return stub_->ValidateToolCall(&ctx, req, resp);
  }

  grpc::Status Output(const std::string& snapshot, const std::string& body) {
    grpc::ClientContext ctx;
    v1::ValidateToolOutputRequest req;
    req.set_snapshot_id(snapshot);
    req.set_tool_name("lookup");
    req.set_content_type("application/json");
    req.set_http_status(200);
    req.set_body(body);
    v1::ValidateToolOutputResponse resp;
    return stub_->ValidateToolOutput(&ctx, req, &resp);
  }

 private:
  std::unique_ptr<v1::ToolGate::Stub> stub_;
};

std::vector<Json> ReadLines(const std::string& path) {
  std::vector<Json> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(Json::parse(line));
  }
  return lines;
}

TEST(AuditReplayTest, ReplayReportsWhatAChangedSnapshotDecidesDifferently) {
  const std::string audit = TmpPath("replay.jsonl");
  std::remove(audit.c_str());
  ServerProcess server({"--audit_log=" + audit, "--audit_payloads"});
  ASSERT_TRUE(server.started());
  std::string v1, v2;
  v1::ValidateToolCallResponse allowed, rejected;
  {
    // Scoped: an idle open connection would hold the server's drain.
    Client client(server.address());
    v1 = client.Create(kIdIsInteger);
    v2 = client.Create(kIdIsString);
    ASSERT_TRUE(client.Validate(v1, Call("7"), &allowed).ok());
    ASSERT_TRUE(client.Validate(v1, Call("\"seven\""), &rejected).ok());
    ASSERT_TRUE(client.Output(v1, R"({"ok":true})").ok());
  }
  ASSERT_EQ(allowed.decision(), v1::DECISION_ALLOW);
  ASSERT_EQ(rejected.decision(), v1::DECISION_REJECT);

  // On disk before the answers came back, with what replay needs.
  const std::vector<Json> lines = ReadLines(audit);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["audit_id"], allowed.audit_id());
  EXPECT_EQ(lines[0]["payload"]["native_json"], Call("7"));
  EXPECT_EQ(lines[0]["payload"]["repair"], "REPAIR_POLICY_STRICT");
  EXPECT_FALSE(lines[0]["payload"].contains("snapshot_id"));
  EXPECT_TRUE(lines[0]["time"].is_string());
  EXPECT_TRUE(lines[0]["latency_us"].is_number_integer());

  std::ostringstream recorded;
  recorded << std::ifstream(audit).rdbuf();
  const std::string before = WriteFile("recorded.jsonl", recorded.str());

  CliResult changed = Ctl({"replay", "--audit", audit, "--snapshot", v2,
                           "--server", server.address()});
  EXPECT_EQ(changed.code, client::kExitDenied) << changed.err;
  Json report = Json::parse(changed.out);
  EXPECT_EQ(report["replayed"], 3);
  EXPECT_EQ(report["same"], 1);
  EXPECT_EQ(report["changed"], 2);
  EXPECT_EQ(report["skipped"], 0);
  ASSERT_EQ(report["changes"].size(), 2u);
  EXPECT_EQ(report["changes"][0]["audit_id"], allowed.audit_id());
  EXPECT_EQ(report["changes"][0]["before"], "ALLOW");
  EXPECT_EQ(report["changes"][0]["after"], "REJECT");
  EXPECT_EQ(report["changes"][0]["violations"],
            Json::array({"invalid_arguments"}));
  EXPECT_EQ(report["changes"][1]["audit_id"], rejected.audit_id());
  EXPECT_EQ(report["changes"][1]["after"], "ALLOW");

  // The server audited the calls replay made, after the three it replayed.
  EXPECT_EQ(ReadLines(audit).size(), 6u);

  // In process against the manifest that made the decisions: no change.
  const std::string manifest = WriteFile("v1.json", kIdIsInteger);
  CliResult same = Ctl({"replay", "--audit", before, "--manifest", manifest});
  EXPECT_EQ(same.code, client::kExitOk) << same.err;
  EXPECT_EQ(Json::parse(same.out)["same"], 3);
  EXPECT_EQ(server.Stop(), 0);
}

TEST(AuditReplayTest, ReplayErrorsExitTwo) {
  const std::string manifest = WriteFile("m.json", kIdIsInteger);
  const std::string empty = WriteFile("empty.jsonl", "");
  const std::string junk = WriteFile("junk.jsonl", "not json\n");
  struct Case {
    std::vector<std::string> args;
    const char* err;
  };
  const Case kCases[] = {
      {{"replay", "--manifest", manifest}, "--audit is required"},
      {{"replay", "--audit", empty}, "exactly one of --snapshot"},
      {{"replay", "--audit", empty, "--manifest", manifest, "--snapshot", "x"},
       "exactly one of --snapshot"},
      {{"replay", "--audit", TmpPath("absent.jsonl"), "--manifest", manifest},
       "absent.jsonl: cannot read"},
      // A regular file (stdin is "-"): a device is refused, never read.
      {{"replay", "--audit", "/dev/zero", "--manifest", manifest},
       "--audit: /dev/zero: is a character device, not a regular file"},
      {{"replay", "--audit", junk, "--manifest", manifest}, "audit line 1"},
      {{"replay", "--audit", empty, "--manifest", WriteFile("bad.json", "[")},
       "--manifest"},
  };
  for (const Case& c : kCases) {
    CliResult r = Ctl(c.args);
    EXPECT_EQ(r.code, client::kExitError) << c.err;
    EXPECT_NE(r.err.find(c.err), std::string::npos) << r.err;
  }
  // Nothing recorded is nothing changed.
  CliResult none = Ctl({"replay", "--audit", empty, "--manifest", manifest});
  EXPECT_EQ(none.code, client::kExitOk) << none.err;
}

// /dev/full takes the open and fails every write (ENOSPC), as a full disk.
TEST(AuditReplayTest, RequiredAuditOnAFullDiskWithholdsDecisions) {
  ServerProcess required({"--audit_log=/dev/full", "--audit_required"});
  ASSERT_TRUE(required.started());
  v1::ValidateToolCallResponse resp;
  {
    Client client(required.address());
    const std::string id = client.Create(kIdIsInteger);
    grpc::Status s = client.Validate(id, Call("7"), &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE);
    EXPECT_NE(s.error_message().find("--audit_required"), std::string::npos);
    EXPECT_EQ(resp.decision(), v1::DECISION_UNSPECIFIED);
    EXPECT_EQ(client.Output(id, R"({"ok":true})").error_code(),
              grpc::StatusCode::UNAVAILABLE);
  }
  EXPECT_EQ(required.Stop(), 0);

  // Without it a failed write is counted, and the decision still returned.
  ServerProcess optional({"--audit_log=/dev/full"});
  ASSERT_TRUE(optional.started());
  Client other(optional.address());
  ASSERT_TRUE(
      other.Validate(other.Create(kIdIsInteger), Call("7"), &resp).ok());
  EXPECT_EQ(resp.decision(), v1::DECISION_ALLOW);
  EXPECT_EQ(optional.Stop(), 0);
}

}  // namespace
}  // namespace toolgate
