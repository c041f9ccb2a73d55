#include "core/mesh/mcp_turn.h"

#include <string>
#include <vector>

#include "core/gate/calls.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace mesh {
namespace {

McpBody Read(const std::string& text) {
  absl::StatusOr<McpBody> body = ReadMcpBody(text, JsonLimits());
  EXPECT_TRUE(body.ok()) << body.status();
  return body.ok() ? *body : McpBody();
}

std::string Call(const std::string& id, const std::string& params) {
  return R"({"jsonrpc":"2.0","id":)" + id +
         R"(,"method":"tools/call","params":)" + params + "}";
}

const char kPing[] = R"({"jsonrpc":"2.0","id":"p","method":"ping"})";

TEST(BuildTurn, OneCallIsItsParamsAsTheyAre) {
  const McpBody body = Read(
      "[" + std::string(kPing) + "," +
      Call("1", R"({"name":"t","arguments":{"a":1},"_meta":{}})") + "]");
  const McpTurn turn = BuildTurn(body, JsonLimits());
  EXPECT_EQ(turn.calls, std::vector<size_t>{1});
  EXPECT_EQ(turn.output, body.messages[1].params_json);
  EXPECT_FALSE(turn.unreadable.has_value());
  EXPECT_TRUE(BuildTurn(Read(kPing), JsonLimits()).output.empty());
}

TEST(BuildTurn, SeveralCallsAreOneOutputInOrder) {
  const McpBody body =
      Read("[" + Call("1", R"({"name":"b","arguments":{"x":[1,{"y":2}]}})") +
           "," + kPing + "," + Call("2", R"({"arguments":{},"name":"a"})") +
           "]");
  const McpTurn turn = BuildTurn(body, JsonLimits());
  EXPECT_EQ(turn.calls, (std::vector<size_t>{0, 2}));
  const RawCalls read = ReadNativeCalls(turn.output, JsonLimits());
  ASSERT_TRUE(read.error.ok()) << read.error.message;
  ASSERT_EQ(read.calls.size(), 2u);
  EXPECT_EQ(read.calls[0].name, "b");
  EXPECT_EQ(CanonicalJson(read.calls[0].arguments), R"({"x":[1,{"y":2}]})");
  EXPECT_EQ(read.calls[1].name, "a");
  EXPECT_EQ(CanonicalJson(read.calls[1].arguments), "{}");
}

TEST(BuildTurn, ParamsThatDoNotReadCleanlyGoAlone) {
  const std::string bad[] = {
      R"({"name":"t"})",                      // missing_arguments
      R"({"name":1,"arguments":{}})",         // malformed_tool_call
      R"({"name":"t","arguments":[]})",       // arguments_not_object
      R"({"name":"t","arguments":{},)"
      R"("_meta":{"name":"u","arguments":{}}})",  // ambiguous_output
      R"({"name":"t","arguments":{},"content":[]})",  // ambiguous_output
  };
  for (const std::string& params : bad) {
    SCOPED_TRACE(params);
    const McpBody body =
        Read("[" + Call("1", R"({"name":"ok","arguments":{}})") + "," +
             Call("2", params) + "]");
    const McpTurn turn = BuildTurn(body, JsonLimits());
    ASSERT_TRUE(turn.unreadable.has_value());
    EXPECT_EQ(*turn.unreadable, 1u);
    EXPECT_EQ(turn.output, body.messages[1].params_json);
    const RawCalls read = ReadNativeCalls(turn.output, JsonLimits());
    EXPECT_TRUE(!read.error.ok() || !read.calls[0].error.ok());
  }
}

ValidateCallResponse Rejected(std::vector<int> call_indexes) {
  ValidateCallResponse r;
  r.decision = Decision::kReject;
  r.audit_id = "aud_1";
  for (int i : call_indexes) {
    Violation v;
    v.code = "code_" + std::to_string(i);
    v.call_index = i;
    r.violations.push_back(v);
  }
  return r;
}

std::vector<std::string> Reasons(const McpBody& body,
                                 const std::vector<std::optional<RpcError>>& e) {
  std::vector<std::string> out;
  for (const Json& m : DeniedAnswer(body, e)) {
    out.push_back(m["error"]["data"]["reason"]);
  }
  return out;
}

TEST(TurnErrors, EachCallGetsItsOwnViolations) {
  const McpBody body =
      Read("[" + Call("1", R"({"name":"a","arguments":{}})") + "," + kPing +
           "," + Call("2", R"({"name":"b","arguments":{}})") + "]");
  const McpTurn turn = BuildTurn(body, JsonLimits());
  EXPECT_EQ(Reasons(body, TurnErrors(body, turn, Rejected({1}), {})),
            (std::vector<std::string>{"batch_denied", "batch_denied",
                                      "code_1"}));
  // A violation of the whole turn is every call's.
  EXPECT_EQ(Reasons(body, TurnErrors(body, turn, Rejected({-1}), {})),
            (std::vector<std::string>{"code_-1", "batch_denied", "code_-1"}));
  // A veto's reason goes only to the call it names.
  ValidateCallResponse vetoed = Rejected({0, 1});
  vetoed.stop_reason = "code_1";
  EXPECT_EQ(Reasons(body, TurnErrors(body, turn, vetoed, {})),
            (std::vector<std::string>{"code_0", "batch_denied", "code_1"}));
  ValidateCallResponse stopped;
  stopped.decision = Decision::kStop;
  stopped.stop_reason = "breaker_open";
  EXPECT_EQ(Reasons(body, TurnErrors(body, turn, stopped, {})),
            (std::vector<std::string>{"breaker_open", "batch_denied",
                                      "breaker_open"}));
}

TEST(TurnErrors, ApprovalGoesToTheCallsThatNeedIt) {
  const McpBody body =
      Read("[" + Call("1", R"({"name":"a","arguments":{}})") + "," +
           Call("2", R"({"name":"b","arguments":{}})") + "]");
  const McpTurn turn = BuildTurn(body, JsonLimits());
  ValidateCallResponse asked;
  asked.decision = Decision::kNeedsApproval;
  asked.approval_id = "apr_1";
  EXPECT_EQ(Reasons(body, TurnErrors(body, turn, asked, {false, true})),
            (std::vector<std::string>{"batch_denied", "needs_approval"}));
  EXPECT_EQ(Reasons(body, TurnErrors(body, turn, asked, {false, false})),
            (std::vector<std::string>{"needs_approval", "needs_approval"}));
}

TEST(DeniedAnswer, OneMessageIsAnObjectABatchAnArray) {
  const McpBody one = Read(Call("7", R"({"name":"a","arguments":{}})"));
  const Json single =
      DeniedAnswer(one, {DeniedError("x", "no")});
  EXPECT_TRUE(single.is_object());
  EXPECT_EQ(single["id"], 7);
  const McpBody batch = Read("[" + std::string(kPing) + "]");
  EXPECT_TRUE(DeniedAnswer(batch, {}).is_array());
}

TEST(DecidedAsSent, NamesAndArgumentsExactly) {
  const McpBody body =
      Read("[" + Call("1", R"({"name":"a","arguments":{"n":1}})") + "," +
           Call("2", R"({"name":"b","arguments":{}})") + "]");
  const McpTurn turn = BuildTurn(body, JsonLimits());
  ValidateCallResponse allowed;
  allowed.decision = Decision::kAllow;
  allowed.calls.resize(2);
  allowed.calls[0].name = "a";
  allowed.calls[0].arguments_json = R"({"n":1})";
  allowed.calls[1].name = "b";
  allowed.calls[1].arguments_json = "{}";
  EXPECT_TRUE(DecidedAsSent(body, turn, allowed));
  allowed.calls[0].arguments_json = R"({"n":"1"})";
  EXPECT_FALSE(DecidedAsSent(body, turn, allowed));
  allowed.calls.pop_back();
  EXPECT_FALSE(DecidedAsSent(body, turn, allowed));
}

}  // namespace
}  // namespace mesh
}  // namespace toolgate
