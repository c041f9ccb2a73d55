// ext_authz Check with a real engine: a JSON-RPC batch is one turn (issue
// 25, item 6), REST routes refuse query strings (item 14), and requests a
// tool server could read otherwise than toolgate are refused (§B).
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/envoy_authz.h"
#include "server/envoy_common.h"

namespace toolgate {
namespace server {
namespace {

using envoy::service::auth::v3::CheckRequest;
using envoy::service::auth::v3::CheckResponse;
using testing::ElementsAre;

// transfer: one per turn; notify: 3 per run; wire: a human's approval;
// order and post: a coercion and an HTML-stripping rule.
constexpr char kManifest[] = R"({"toolgate": "v1", "tools": [
 {"name": "get_account", "side_effect": "read", "input_schema": {"type":
  "object", "properties": {"id": {"type": "string"}, "n": {"type":
  "integer"}}, "required": ["id"], "additionalProperties": false}},
 {"name": "transfer", "side_effect": "write", "policy": {"parallel": false},
  "input_schema": {"type": "object", "properties": {"amount": {"type":
  "integer"}}, "required": ["amount"]}},
 {"name": "notify", "side_effect": "write", "policy": {"max_calls_per_run":
  3}, "input_schema": {"type": "object", "properties": {"to": {"type":
  "string"}}, "required": ["to"]}},
 {"name": "wire", "side_effect": "destructive", "policy":
  {"requires_approval": true}, "input_schema": {"type": "object",
  "properties": {"amount": {"type": "integer"}}, "required": ["amount"]}},
 {"name": "order", "side_effect": "write", "policy": {"coerce":
  {"/quantity": "integer_from_string"}}, "input_schema": {"type": "object",
  "properties": {"quantity": {"type": "integer"}}, "required":
  ["quantity"]}},
 {"name": "post", "side_effect": "write", "policy": {"arguments": {"/text":
  {"kind": "text", "strip_html": true}}}, "input_schema": {"type":
  "object", "properties": {"text": {"type": "string"}}, "required":
  ["text"]}}]})";

std::string Call(const std::string& tool, const std::string& args,
                 const std::string& id = "1") {
  return R"({"jsonrpc":"2.0","id":)" + id +
         R"(,"method":"tools/call","params":{"name":")" + tool +
         R"(","arguments":)" + args + "}}";
}

std::string Batch(const std::vector<std::string>& messages) {
  std::string out = "[";
  for (const std::string& m : messages) {
    out += (out.size() > 1 ? "," : "") + m;
  }
  return out + "]";
}

const char kPing[] = R"({"jsonrpc":"2.0","id":"p","method":"ping"})";
const char kNote[] =
    R"({"jsonrpc":"2.0","method":"notifications/progress","params":{}})";
const char kGet[] = R"({"id":"A-1"})";
const char kAmount[] = R"({"amount":5})";
const char kTo[] = R"({"to":"ops"})";

struct Asked {
  CheckResponse response;
  MeshOutcome outcome;
  Json body;  // The deny's body; null when allowed.

  bool allowed() const { return response.status().code() == 0; }
  // The deny reason of message i (or of the single answer when i < 0).
  std::string reason(int i = -1) const {
    const Json& m = i < 0 ? body : body[i];
    return m["error"]["data"]["reason"].get<std::string>();
  }
  int code(int i = -1) const {
    const Json& m = i < 0 ? body : body[i];
    return m["error"]["code"].get<int>();
  }
};

class BatchTest : public testing::Test {
 protected:
  BatchTest()
      : engine_(EngineOptions(), [this](const AuditRecord& r) {
          records_.push_back(r);
          return true;
        }) {}

  void SetUp() override {
    auto snapshot =
        engine_.CreateSnapshot(kManifest, ManifestFormat::kAuto, "bank");
    ASSERT_TRUE(snapshot.ok()) << snapshot.status();
    RunLimits limits;
    limits.max_consecutive_rejects = 50;  // Rejects here are the subject.
    auto run = engine_.OpenRun((*snapshot)->id(), "model", {}, limits);
    ASSERT_TRUE(run.ok()) << run.status();
    run_ = *run;
    records_.clear();
  }

  // A Check as Envoy sends it: MCP route /mcp (or a REST route with
  // `/tools/{name}` when the path is elsewhere), in the run unless
  // `stateless`.
  Asked Ask(const std::string& body, const std::string& path = "/mcp",
            const std::vector<std::pair<std::string, std::string>>& headers =
                {},
            bool stateless = false) {
    CheckRequest request;
    auto* http =
        request.mutable_attributes()->mutable_request()->mutable_http();
    http->set_method("POST");
    http->set_path(path);
    auto& h = *http->mutable_headers();
    h["content-type"] = "application/json";
    if (!stateless) {
      h[std::string(kRunIdHeader)] = run_.run->id();
      h[std::string(kRunTokenHeader)] = run_.token;
    }
    for (const auto& [k, v] : headers) h[k] = v;
    http->set_raw_body(body);
    http->set_size(static_cast<int64_t>(body.size()));
    auto& ctx = *request.mutable_attributes()->mutable_context_extensions();
    ctx[std::string(kSnapshotSetting)] = "bank";
    if (path != "/mcp") ctx[std::string(kToolPathSetting)] = "/tools/{name}";
    Asked out;
    out.response =
        DecideCheck(&engine_, &grants_, request, CancelToken(), &out.outcome);
    if (!out.allowed()) {
      out.body = Json::parse(out.response.denied_response().body());
    }
    return out;
  }

  std::vector<std::string> Decisions() const {
    std::vector<std::string> out;
    for (const AuditRecord& r : records_) {
      if (r.rpc == "ValidateToolCall") out.push_back(r.decision);
    }
    return out;
  }

  std::vector<AuditRecord> records_;
  Engine engine_;
  RunGrants grants_;
  OpenedRun run_;
};

TEST_F(BatchTest, ParallelFalseHoldsAcrossABatch) {
  const Asked two = Ask(Batch({Call("transfer", kAmount, "1"),
                               Call("transfer", kAmount, "2")}));
  ASSERT_FALSE(two.allowed());
  EXPECT_EQ(two.outcome.decision, "REJECT");
  EXPECT_EQ(two.reason(0), "parallel_not_allowed");
  EXPECT_EQ(two.reason(1), "parallel_not_allowed");
  const Asked mixed =
      Ask(Batch({Call("transfer", kAmount, "1"), Call("notify", kTo, "2")}));
  ASSERT_FALSE(mixed.allowed());
  EXPECT_EQ(mixed.reason(0), "parallel_not_allowed");
  EXPECT_EQ(mixed.reason(1), "batch_denied");
  // One turn, one record each, naming both tools.
  EXPECT_THAT(Decisions(), ElementsAre("REJECT", "REJECT"));
  EXPECT_THAT(records_.back().tools, ElementsAre("transfer", "notify"));
}

TEST_F(BatchTest, BatchOfOneAndNotificationsAreNotCalls) {
  EXPECT_TRUE(Ask(Batch({Call("transfer", kAmount)})).allowed());
  const Asked mixed =
      Ask(Batch({kNote, kPing, Call("transfer", kAmount, "3"), kNote}));
  EXPECT_TRUE(mixed.allowed()) << mixed.body;
  EXPECT_EQ(mixed.outcome.decision, "ALLOW");
  EXPECT_THAT(Decisions(), ElementsAre("ALLOW", "ALLOW"));
}

TEST_F(BatchTest, ABatchDeniedAtItsLastCallSpendsNoBudget) {
  // Refused for another reason at the fourth call.
  const Asked unknown =
      Ask(Batch({Call("notify", kTo, "1"), Call("notify", kTo, "2"),
                 Call("notify", kTo, "3"), Call("no_such_tool", "{}", "4")}));
  ASSERT_FALSE(unknown.allowed());
  EXPECT_EQ(unknown.reason(3), "unknown_tool");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(unknown.reason(i), "batch_denied");
  // Past the budget (3) at the fourth call: all or none.
  const Asked past = Ask(Batch({Call("notify", kTo, "1"), Call("notify", kTo, "2"),
                                Call("notify", kTo, "3"), Call("notify", kTo, "4")}));
  ASSERT_FALSE(past.allowed());
  EXPECT_EQ(past.reason(3), "call_budget_exhausted");
  // The budget is whole: three calls, then no more.
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(Ask(Call("notify", kTo)).allowed()) << "call " << i;
  }
  EXPECT_EQ(Ask(Call("notify", kTo)).reason(), "call_budget_exhausted");
  EXPECT_THAT(Decisions(), ElementsAre("REJECT", "REJECT", "ALLOW", "ALLOW",
                                       "ALLOW", "REJECT"));
}

TEST_F(BatchTest, ADeniedMessageDecidesNothing) {
  for (const std::string& other :
       {std::string(R"({"jsonrpc":"2.0","id":9,"method":"sampling/x"})"),
        std::string(R"({"jsonrpc":"2.0","id":9,"result":{}})")}) {
    const Asked denied = Ask(Batch({Call("notify", kTo, "1"), other}));
    ASSERT_FALSE(denied.allowed());
    EXPECT_EQ(denied.outcome.decision, "DENIED_REQUEST");
    EXPECT_EQ(denied.reason(0), "batch_denied");
  }
  EXPECT_TRUE(Decisions().empty());
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(Ask(Call("notify", kTo)).allowed());
}

TEST_F(BatchTest, ApprovalInsideABatchIsTheTurns) {
  const std::string batch =
      Batch({Call("get_account", kGet, "1"), Call("wire", kAmount, "2")});
  const Asked asked = Ask(batch);
  ASSERT_FALSE(asked.allowed());
  EXPECT_EQ(asked.outcome.decision, "NEEDS_APPROVAL");
  EXPECT_EQ(asked.reason(0), "batch_denied");
  EXPECT_EQ(asked.code(1), mesh::kNeedsApprovalCode);
  const std::string approval =
      asked.body[1]["error"]["data"]["approval_id"].get<std::string>();
  ASSERT_FALSE(approval.empty());
  ASSERT_TRUE(engine_.DecideApproval(approval, true, "ops", "fine").ok());
  const std::vector<std::pair<std::string, std::string>> with = {
      {std::string(kApprovalHeader), approval}};
  EXPECT_TRUE(Ask(batch, "/mcp", with).allowed());
  EXPECT_EQ(Ask(batch, "/mcp", with).reason(1), "approval_used");
  // Nothing of the first batch ran: its read call was not ALLOWed alone.
  EXPECT_THAT(Decisions(), ElementsAre("NEEDS_APPROVAL", "ALLOW", "REJECT"));
}

TEST_F(BatchTest, ADeniedBatchKeepsItsApproval) {
  const Asked asked = Ask(Call("wire", kAmount));
  const std::string approval =
      asked.body["error"]["data"]["approval_id"].get<std::string>();
  ASSERT_TRUE(engine_.DecideApproval(approval, true, "ops", "fine").ok());
  const std::vector<std::pair<std::string, std::string>> with = {
      {std::string(kApprovalHeader), approval}};
  // Refused at its last call, past the notify budget: the approval its
  // first call would have used is not spent.
  const Asked denied =
      Ask(Batch({Call("wire", kAmount, "1"), Call("notify", kTo, "2"),
                 Call("notify", kTo, "3"), Call("notify", kTo, "4"),
                 Call("notify", kTo, "5")}),
          "/mcp", with);
  ASSERT_FALSE(denied.allowed());
  EXPECT_EQ(denied.reason(4), "call_budget_exhausted");
  EXPECT_EQ(denied.reason(0), "batch_denied");
  EXPECT_TRUE(Ask(Call("wire", kAmount), "/mcp", with).allowed());
}

TEST_F(BatchTest, OneApprovalPerTurn) {
  const Asked two =
      Ask(Batch({Call("wire", kAmount, "1"), Call("wire", R"({"amount":6})", "2")}));
  ASSERT_FALSE(two.allowed());
  EXPECT_EQ(two.reason(0), "batch_denied");
  EXPECT_EQ(two.reason(1), "parallel_not_allowed");
  EXPECT_TRUE(engine_.ListApprovals("", ApprovalState::kUnspecified)->empty());
}

TEST_F(BatchTest, StatelessApprovalInABatchNamesTheRun) {
  const Asked asked = Ask(
      Batch({Call("get_account", kGet, "1"), Call("wire", kAmount, "2")}),
      "/mcp", {}, /*stateless=*/true);
  ASSERT_FALSE(asked.allowed());
  EXPECT_EQ(asked.code(1), mesh::kNeedsApprovalCode);
  EXPECT_EQ(asked.reason(0), "batch_denied");
}

TEST_F(BatchTest, EachIdGetsItsAnswerInOrder) {
  const Asked asked =
      Ask(Batch({kPing, Call("transfer", kAmount, "2"),
                 Call("get_account", "{}", R"("three")"), kNote}));
  ASSERT_FALSE(asked.allowed());
  ASSERT_TRUE(asked.body.is_array());
  std::vector<std::string> ids;
  for (const Json& m : asked.body) ids.push_back(CanonicalJson(m["id"]));
  EXPECT_THAT(ids, ElementsAre("\"p\"", "2", "\"three\"", "null"));
  EXPECT_EQ(asked.reason(0), "batch_denied");
  EXPECT_EQ(asked.reason(1), "parallel_not_allowed");
  EXPECT_EQ(asked.code(2), mesh::kInvalidParams);  // Its own violation.
  EXPECT_EQ(asked.body[2]["error"]["data"]["violations"][0]["code"],
            "invalid_arguments");
  EXPECT_EQ(asked.reason(3), "batch_denied");
}

TEST_F(BatchTest, DuplicateIdsAreRefusedUndecided) {
  const Asked dup =
      Ask(Batch({Call("notify", kTo, "1"), kPing, Call("notify", kTo, "1")}));
  ASSERT_FALSE(dup.allowed());
  EXPECT_EQ(dup.outcome.decision, "DENIED_REQUEST");
  EXPECT_EQ(dup.reason(0), "duplicate_id");
  EXPECT_EQ(dup.reason(1), "batch_denied");
  EXPECT_EQ(dup.reason(2), "duplicate_id");
  EXPECT_TRUE(Decisions().empty());
  // Two notifications carry no id: no duplicate.
  EXPECT_TRUE(Ask(Batch({kNote, Call("get_account", kGet, "1"),
                         Call("get_account", kGet, "2"), kNote}))
                  .allowed());
  const size_t decided = Decisions().size();
  // 1 beside "1", " 1", "0x1", "": a client may match answers by
  // Number(id), so a string that could read as a number clashes with every
  // number id ("p", the ping's, never does).
  for (const char* other : {R"("1")", R"(" 1")", R"("0x1")", R"("")"}) {
    const Asked mixed = Ask(Batch({Call("get_account", kGet, "1"), kPing,
                                   Call("get_account", kGet, other)}));
    ASSERT_FALSE(mixed.allowed()) << other;
    EXPECT_EQ(mixed.reason(0), "duplicate_id");
    EXPECT_EQ(mixed.reason(2), "duplicate_id");
  }
  EXPECT_EQ(Decisions().size(), decided);
}

TEST_F(BatchTest, ParamsOfAnotherShapeAreRefused) {
  // The engine would read these as an OpenAI message or tool_calls array
  // and ALLOW get_account; the tool server gets a tools/call naming nothing.
  const std::string openai =
      R"({"tool_calls":[{"id":"c","type":"function","function":)"
      R"({"name":"get_account","arguments":"{\"id\":\"A-1\"}"}}]})";
  const std::string array =
      R"([{"id":"c","type":"function","function":)"
      R"({"name":"get_account","arguments":"{\"id\":\"A-1\"}"}}])";
  for (const std::string& params : {openai, array, std::string("{}"),
                                    std::string("null")}) {
    const Asked asked =
        Ask(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":)" +
            params + "}");
    ASSERT_FALSE(asked.allowed()) << params;
    EXPECT_EQ(asked.reason(), "invalid_params") << params;
  }
  EXPECT_TRUE(Decisions().empty());
}

TEST_F(BatchTest, ArgumentsAreDecidedAsTheToolGetsThem) {
  // Coerced or stripped arguments would be checked, and the originals run.
  EXPECT_EQ(Ask(Call("order", R"({"quantity":"5"})")).reason(),
            "invalid_arguments");
  EXPECT_EQ(Ask(Call("post", R"({"text":"<b>hi</b>"})")).reason(),
            "text_invalid");
  EXPECT_EQ(Ask(Batch({Call("order", R"({"quantity":"5"})", "1"),
                       Call("get_account", kGet, "2")}))
                .reason(0),
            "invalid_arguments");
  EXPECT_TRUE(Ask(Call("order", R"({"quantity":5})")).allowed());
  EXPECT_TRUE(Ask(Call("post", R"({"text":"hi"})")).allowed());
}

TEST_F(BatchTest, IdsAndNumbersAJavaScriptServerReadsOtherwise) {
  const struct {
    std::string body;
    std::string reason;  // "" for allowed.
  } cases[] = {
      {Call("get_account", kGet, "null"), "not_jsonrpc"},
      {Call("get_account", kGet, "9007199254740992"), "not_jsonrpc"},
      {Call("get_account", kGet, "1.5"), "not_jsonrpc"},
      {Call("get_account", kGet, "9007199254740991"), ""},
      {Call("get_account", kGet, "-9007199254740991"), ""},
      {Call("get_account", R"({"id":"A","n":9007199254740993})"),
       "unreadable_body"},
      {Call("get_account", R"({"id":"A","n":-9223372036854775807})"),
       "unreadable_body"},
      {Call("get_account", R"({"id":"A","n":18446744073709551615})"),
       "unreadable_body"},
      {Call("get_account", R"({"id":"A","n":1152921504606846976})"), ""},
  };
  for (const auto& c : cases) {
    const Asked asked = Ask(c.body);
    EXPECT_EQ(asked.allowed(), c.reason.empty()) << c.body;
    if (!c.reason.empty()) {
      EXPECT_EQ(asked.reason(), c.reason) << c.body;
    }
  }
}

TEST_F(BatchTest, RestRoutesRefuseQueriesAndOddNames) {
  const struct {
    std::string path;
    std::string reason;  // "" for allowed.
  } cases[] = {
      {"/tools/get_account", ""},
      {"/tools/get%5Faccount", ""},
      {"/tools/get_account?id=../../admin", "query_not_allowed"},
      {"/tools/get_account?", "query_not_allowed"},
      {"/tools/get_account?a=b", "query_not_allowed"},
      {"/tools/get_account#frag", "query_not_allowed"},
      {"/tools/get_account?#", "query_not_allowed"},
      {"/tools/get_account%3Fid=x", "no_tool"},
      {"/tools/get_account%23frag", "no_tool"},
      {"/tools/get_account;v=1", "no_tool"},
      {"/tools/get_account%3Bv=1", "no_tool"},
      {"/tools/%2e%2e", "no_tool"},
      {"/tools/get_account%252F", "no_tool"},
      {"/tools/get_account%00", "no_tool"},
      {"/tools/a%5Cb", "no_tool"},
      {"/tools//get_account", "no_tool"},
  };
  for (const auto& c : cases) {
    const Asked asked = Ask(kGet, c.path);
    EXPECT_EQ(asked.allowed(), c.reason.empty()) << c.path;
    if (c.reason.empty()) continue;
    EXPECT_EQ(asked.response.denied_response().status().code(), 403);
    EXPECT_EQ(asked.body["error"]["data"]["reason"], c.reason) << c.path;
  }
  EXPECT_THAT(Decisions(), ElementsAre("ALLOW", "ALLOW"));
}

TEST_F(BatchTest, BodyHeadersAServerCouldDecodeOtherwise) {
  const struct {
    std::string name, value, reason;  // reason "" for allowed.
  } cases[] = {
      {"content-type", "application/json; charset=utf-7",
       "unsupported_content_type"},
      {"content-type", "application/json; charset=utf-16le",
       "unsupported_content_type"},
      {"content-type", "application/json; charset=latin1",
       "unsupported_content_type"},
      {"content-type", "application/json; charset=utf-8; charset=utf-7",
       "unsupported_content_type"},
      {"content-type", "application/json, application/json; charset=utf-7",
       "unsupported_content_type"},
      {"content-type", "text/plain", "unsupported_content_type"},
      {"content-type", "application/json; charset=\"utf-7\"",
       "unsupported_content_type"},
      {"content-type", "application/json; charset", "unsupported_content_type"},
      {"content-type", "Application/JSON; Charset=\"UTF-8\"", ""},
      {"content-type", "application/json;charset=utf-8;x=\"a;b\"", ""},
      {"content-type", "application/json", ""},
      {"content-encoding", "gzip", "unsupported_content_encoding"},
      {"content-encoding", "identity, gzip", "unsupported_content_encoding"},
      {"content-encoding", "identity", ""},
      {"x-envoy-auth-partial-body", "false,true", "partial_body"},
      {"x-envoy-auth-partial-body", "false", ""},
  };
  for (const auto& c : cases) {
    const Asked asked = Ask(Call("get_account", kGet), "/mcp", {{c.name, c.value}});
    EXPECT_EQ(asked.allowed(), c.reason.empty()) << c.name << ": " << c.value;
    if (!c.reason.empty()) {
      EXPECT_EQ(asked.reason(), c.reason) << c.value;
      EXPECT_EQ(asked.body["id"], 1) << c.value;
    }
  }
}

TEST_F(BatchTest, AHeaderTwiceInDifferentCaseIsNeitherValue) {
  const Asked asked = Ask(Call("get_account", kGet), "/mcp",
                          {{"X-Toolgate-Run-Id", "run-other"}});
  ASSERT_FALSE(asked.allowed());
  EXPECT_EQ(asked.reason(), "run_rejected");
}

}  // namespace
}  // namespace server
}  // namespace toolgate
