// Floods against the real binary (hardening round 2, issue 25):
//  (a) a caller without the admin role creating junk snapshots under store
//      pressure never gets a name bound by an admin, by --manifests or by a
//      reload (SIGHUP): the trusted snapshots are never evicted, so their
//      names are never free; only an admin's DeleteSnapshot frees one.
//  (b) the schema-pool thrash manifest (24 tools of \p{L}{300}-style
//      patterns) is refused at CreateSnapshot with schema_too_complex, and
//      a request over 24 tools whose programs outgrow the pool compiles
//      only its budget's worth: the rest are refused, never allowed.
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testing/server_process.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;
using testutil::ServerProcess;
using Json = nlohmann::json;

std::string TmpDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t ? t : "/tmp";
}

// One OpenAI tool `name` taking {"x": <type>}.
std::string Tools(const std::string& name, const std::string& type) {
  return Json::array({{{"type", "function"},
                       {"function",
                        {{"name", name},
                         {"parameters",
                          {{"type", "object"},
                           {"properties", {{"x", {{"type", type}}}}},
                           {"required", {"x"}}}}}}}})
      .dump();
}

bool Eventually(const std::function<bool()>& done) {
  for (int i = 0; i < 200; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

class Client {
 public:
  Client(const ServerProcess& server, std::string bearer)
      : stub_(v1::ToolGate::NewStub(grpc::CreateChannel(
            server.address(), grpc::InsecureChannelCredentials()))),
        bearer_(std::move(bearer)) {}

  grpc::Status Create(const std::string& manifest, const std::string& name,
                      std::string* id = nullptr) {
    grpc::ClientContext ctx;
    Authorize(ctx);
    v1::CreateSnapshotRequest req;
    req.set_manifest_json(manifest);
    req.set_name(name);
    v1::CreateSnapshotResponse resp;
    grpc::Status s = stub_->CreateSnapshot(&ctx, req, &resp);
    if (id != nullptr) *id = resp.snapshot_id();
    return s;
  }

  grpc::Status Delete(const std::string& id) {
    grpc::ClientContext ctx;
    Authorize(ctx);
    v1::DeleteSnapshotRequest req;
    req.set_snapshot_id(id);
    v1::DeleteSnapshotResponse resp;
    return stub_->DeleteSnapshot(&ctx, req, &resp);
  }

  std::string IdOf(const std::string& name) {
    grpc::ClientContext ctx;
    v1::GetSnapshotRequest req;
    req.set_name(name);
    v1::GetSnapshotResponse resp;
    return stub_->GetSnapshot(&ctx, req, &resp).ok() ? resp.snapshot_id() : "";
  }

  grpc::Status Validate(const std::string& snapshot, const std::string& native,
                        v1::ValidateToolCallResponse* resp) {
    grpc::ClientContext ctx;
    v1::ValidateToolCallRequest req;
    req.set_snapshot_id(snapshot);
    req.set_native_json(native);
    return stub_->ValidateToolCall(&ctx, req, resp);
  }

 private:
  void Authorize(grpc::ClientContext& ctx) const {
    if (!bearer_.empty()) ctx.AddMetadata("authorization", "Bearer " + bearer_);
  }

  std::unique_ptr<v1::ToolGate::Stub> stub_;
  const std::string bearer_;
};

// What the attacker tries after each wave of junk: take each trusted name
// with a permissive manifest. Each must be refused and keep its snapshot.
void ExpectNamesHeld(
    Client& agent,
    const std::vector<std::pair<std::string, std::string>>& trusted, int wave) {
  for (const auto& [name, id] : trusted) {
    SCOPED_TRACE(name);
    grpc::Status hijack =
        agent.Create(Tools("anything_" + std::to_string(wave), "string"), name);
    EXPECT_FALSE(hijack.ok()) << "wave " << wave;
    EXPECT_TRUE(hijack.error_code() == grpc::StatusCode::PERMISSION_DENIED ||
                hijack.error_code() == grpc::StatusCode::FAILED_PRECONDITION)
        << hijack.error_message();
    EXPECT_EQ(agent.IdOf(name), id) << "wave " << wave;
  }
}

// Creates more junk than the store has room for, without looking up any
// trusted name meanwhile (a lookup counts as use).
void Flood(Client& agent, int* junk, int count) {
  for (int k = 0; k < count; ++k, ++*junk) {
    grpc::Status s =
        agent.Create(Tools("junk_" + std::to_string(*junk), "string"), "");
    ASSERT_TRUE(s.ok()) << *junk << ": " << s.error_message();
  }
}

TEST(SnapshotNameFlood, TrustedNamesAreNeverClaimable) {
  const std::string dir = TmpDir() + "/flood_manifests";
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  std::ofstream(dir + "/tickets.openai.json") << Tools("lookup", "string");
  const std::string token_file = TmpDir() + "/flood_admin_token";
  std::ofstream(token_file) << "tok-flood\n";
  ServerProcess server({"--admin_token_file=" + token_file,
                        "--snapshot_create=any", "--max_snapshots=6",
                        "--manifests=" + dir});
  ASSERT_TRUE(server.started());
  Client admin(server, "tok-flood");
  Client agent(server, "");

  std::string crm, billing_v1, billing_v2;
  ASSERT_TRUE(admin.Create(Tools("crm_strict", "integer"), "crm", &crm).ok());
  ASSERT_TRUE(
      admin.Create(Tools("bill", "integer"), "billing", &billing_v1).ok());
  // Re-pointed by an admin: v1 loses the name (and becomes evictable).
  ASSERT_TRUE(
      admin.Create(Tools("bill_v2", "integer"), "billing", &billing_v2).ok());
  const std::string tickets = agent.IdOf("tickets");
  ASSERT_FALSE(tickets.empty());

  // Three trusted snapshots of six: junk evicts junk (and billing v1).
  std::vector<std::pair<std::string, std::string>> trusted = {
      {"crm", crm}, {"billing", billing_v2}, {"tickets", tickets}};
  int junk = 0;
  for (int wave = 0; wave < 8; ++wave) {
    Flood(agent, &junk, 8);
    ExpectNamesHeld(agent, trusted, wave);
  }

  // A reload re-points the loaded name; the flood cannot take it either.
  std::ofstream(dir + "/tickets.openai.json") << Tools("lookup", "integer");
  kill(server.pid(), SIGHUP);
  ASSERT_TRUE(Eventually([&] { return agent.IdOf("tickets") != tickets; }));
  trusted[2].second = agent.IdOf("tickets");
  for (int wave = 8; wave < 12; ++wave) {
    Flood(agent, &junk, 8);
    ExpectNamesHeld(agent, trusted, wave);
  }

  // Only an admin frees a name: DeleteSnapshot (agents cannot call it).
  EXPECT_FALSE(agent.Delete(crm).ok());
  ASSERT_TRUE(admin.Delete(crm).ok());
  EXPECT_EQ(agent.IdOf("crm"), "");
  std::string claimed;
  EXPECT_TRUE(agent.Create(Tools("agent_crm", "string"), "crm", &claimed).ok());
  EXPECT_EQ(agent.IdOf("crm"), claimed);
  EXPECT_EQ(server.Stop(), 0);
}

// Trusted snapshots alone filling the store refuse further creates (with
// the reason), and bind nothing; the names stay where they were.
TEST(SnapshotNameFlood, StoreFullOfTrustedSnapshotsRefusesCreates) {
  const std::string token_file = TmpDir() + "/flood_admin_token_full";
  std::ofstream(token_file) << "tok-full\n";
  ServerProcess server({"--admin_token_file=" + token_file,
                        "--snapshot_create=any", "--max_snapshots=8"});
  ASSERT_TRUE(server.started());
  Client admin(server, "tok-full");
  Client agent(server, "");
  std::vector<std::pair<std::string, std::string>> trusted;
  grpc::Status s;
  for (int i = 0; i < 20; ++i) {
    std::string id;
    const std::string name = "named_" + std::to_string(i);
    s = admin.Create(Tools("t" + std::to_string(i), "string"), name, &id);
    if (!s.ok()) break;
    trusted.push_back({name, id});
  }
  ASSERT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(s.error_message(), HasSubstr("named by an admin"));
  ASSERT_FALSE(trusted.empty());
  grpc::Status full = agent.Create(Tools("junk", "string"), "junk");
  EXPECT_EQ(full.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(agent.IdOf("junk"), "");
  ExpectNamesHeld(agent, trusted, 0);
  EXPECT_EQ(server.Stop(), 0);
}

std::string Name(int i) { return (i < 10 ? "t0" : "t") + std::to_string(i); }

// Anthropic tools t00.. with the given patterns in their input schemas.
std::string PatternTools(
    int n, const std::function<std::vector<std::string>(int)>& patterns) {
  Json tools = Json::array();
  for (int i = 0; i < n; ++i) {
    Json props = Json::object();
    const std::vector<std::string> p = patterns(i);
    for (size_t k = 0; k < p.size(); ++k) {
      props["p" + std::to_string(k)] = {{"type", "string"}, {"pattern", p[k]}};
    }
    tools.push_back(
        {{"name", Name(i)},
         {"input_schema", {{"type", "object"}, {"properties", props}}}});
  }
  return tools.dump();
}

TEST(SchemaThrashFlood, ThrashManifestIsRefusedAtCreateSnapshot) {
  ServerProcess server({"--snapshot_create=any"});
  ASSERT_TRUE(server.started());
  Client agent(server, "");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"issue 25", PatternTools(24,
                                [](int i) {
                                  return std::vector<std::string>{
                                      "^\\p{L}{" + std::to_string(300 - i) +
                                          "}$",
                                      "^[\\p{L}\\p{N}]{1," +
                                          std::to_string(200 + i) + "}$"};
                                })},
      {"nested counted repetition",
       PatternTools(24,
                    [](int i) {
                      return std::vector<std::string>{
                          "(\\p{L}{20}){" + std::to_string(10 + i) + "}"};
                    })},
      {"huge class", PatternTools(24, [](int i) {
         return std::vector<std::string>{"[\\p{L}\\p{M}\\p{N}\\p{S}]{" +
                                         std::to_string(40 + i) + "}"};
       })}};
  for (const auto& [label, manifest] : cases) {
    SCOPED_TRACE(label);
    grpc::Status s = agent.Create(manifest, "");
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(s.error_message(), HasSubstr("schema_too_complex"));
    EXPECT_THAT(s.error_message(), HasSubstr("tool \"t00\""));
  }
  EXPECT_EQ(server.Stop(), 0);
}

// 24 tools just under the bounds (~2.2 MB of program each).
std::string HeavyManifest() {
  return PatternTools(24, [](int i) {
    return std::vector<std::string>{"^\\p{L}{12}" + std::to_string(i) + "a$",
                                    "^\\p{L}{12}" + std::to_string(i) + "b$"};
  });
}

// One valid call of each of HeavyManifest's tools.
std::string HeavyCalls() {
  Json content = Json::array();
  for (int i = 0; i < 24; ++i) {
    const std::string word = "abcdefghijkl" + std::to_string(i);
    content.push_back({{"type", "tool_use"},
                       {"id", "c" + std::to_string(i)},
                       {"name", Name(i)},
                       {"input", {{"p0", word + "a"}, {"p1", word + "b"}}}});
  }
  return Json{{"role", "assistant"}, {"content", content}}.dump();
}

// How many calls of `resp` were refused as work past the compile budget;
// any other violation fails the test.
int RefusedForWork(const v1::ValidateToolCallResponse& resp) {
  int refused = 0;
  for (const v1::Violation& v : resp.violations()) {
    EXPECT_EQ(v.keyword(), "evaluation_limit") << v.message();
    refused += v.keyword() == "evaluation_limit";
  }
  return refused;
}

// A 4 MiB pool: each request compiles only its budget's worth (8 MiB: at
// most 5 tools), and every other call is refused as work past the budget,
// never allowed.
TEST(SchemaThrashFlood, RequestOverTwentyFourToolsIsBounded) {
  ServerProcess server(
      {"--snapshot_create=any", "--schema_pool_bytes=4194304"});
  ASSERT_TRUE(server.started());
  Client agent(server, "");
  std::string id;
  grpc::Status created = agent.Create(HeavyManifest(), "", &id);
  ASSERT_TRUE(created.ok()) << created.error_message();
  const std::string output = HeavyCalls();
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE(round);
    v1::ValidateToolCallResponse resp;
    grpc::Status s = agent.Validate(id, output, &resp);
    ASSERT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(resp.decision(), v1::DECISION_REJECT);
    EXPECT_GE(RefusedForWork(resp), 19);  // At most 5 of 24 compiled.
  }
  EXPECT_EQ(server.Stop(), 0);
}

// --request_compile_bytes sets the budget: 0 compiles nothing on use (all
// 24 refused); a budget that covers them all decides the output.
TEST(SchemaThrashFlood, TheBudgetIsAFlag) {
  for (const std::string budget : {"0", "1073741824"}) {
    SCOPED_TRACE(budget);
    ServerProcess server({"--snapshot_create=any", "--schema_pool_bytes=0",
                          "--request_compile_bytes=" + budget});
    ASSERT_TRUE(server.started());
    Client agent(server, "");
    std::string id;
    ASSERT_TRUE(agent.Create(HeavyManifest(), "", &id).ok());
    v1::ValidateToolCallResponse resp;
    ASSERT_TRUE(agent.Validate(id, HeavyCalls(), &resp).ok());
    if (budget == "0") {
      EXPECT_EQ(resp.decision(), v1::DECISION_REJECT);
      EXPECT_EQ(RefusedForWork(resp), 24);
    } else {
      EXPECT_EQ(resp.decision(), v1::DECISION_ALLOW);
    }
    EXPECT_EQ(server.Stop(), 0);
  }
}

}  // namespace
}  // namespace toolgate
