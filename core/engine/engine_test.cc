#include "core/engine/engine.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "schemas/embedded_examples.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;

std::string Example(const std::string& name) {
  for (const EmbeddedManifest& m : EmbeddedExampleManifests()) {
    if (name == m.name) return m.contents;
  }
  ADD_FAILURE() << "no example " << name;
  return "";
}

std::string OpenAICall(const std::string& name, const std::string& args) {
  Json msg = {{"role", "assistant"},
              {"content", nullptr},
              {"tool_calls",
               {{{"id", "call_1"},
                 {"type", "function"},
                 {"function", {{"name", name}, {"arguments", args}}}}}}};
  return msg.dump();
}

class EngineTest : public testing::Test {
 protected:
  void SetUp() override {
    auto tickets = engine_.CreateSnapshot(Example("tickets"),
                                          ManifestFormat::kAuto, "tickets");
    ASSERT_TRUE(tickets.ok()) << tickets.status();
    tickets_ = (*tickets)->id();
    auto billing = engine_.CreateSnapshot(Example("billing"),
                                          ManifestFormat::kAuto, "billing");
    ASSERT_TRUE(billing.ok()) << billing.status();
    billing_ = (*billing)->id();
  }

  ValidateCallResponse Validate(const std::string& snapshot,
                                const std::string& native) {
    ValidateCallRequest r;
    r.snapshot_id = snapshot;
    r.kind = OutputKind::kNative;
    r.output = native;
    auto out = engine_.ValidateToolCall(r);
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? *out : ValidateCallResponse{};
  }

  Engine engine_;
  std::string tickets_;
  std::string billing_;
};

struct RejectCase {
  std::string name;
  std::string tool;
  std::string arguments;
  std::string code;
  std::string pointer;
  std::string keyword;
};

class EngineRejects : public EngineTest,
                      public testing::WithParamInterface<RejectCase> {};

TEST_P(EngineRejects, WithCodeAndPointer) {
  const RejectCase& c = GetParam();
  ValidateCallResponse r = Validate(tickets_, OpenAICall(c.tool, c.arguments));
  EXPECT_EQ(r.decision, Decision::kReject);
  ASSERT_FALSE(r.violations.empty());
  EXPECT_EQ(r.violations[0].code, c.code) << r.violations[0].message;
  EXPECT_EQ(r.violations[0].pointer, c.pointer);
  EXPECT_EQ(r.violations[0].keyword, c.keyword);
  EXPECT_FALSE(r.repair_prompt.empty());
  EXPECT_FALSE(r.violations[0].message.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Table, EngineRejects,
    testing::Values(
        RejectCase{"unknown_tool", "delete_everything", "{}", "unknown_tool",
                   "", "name"},
        RejectCase{"case_differs", "Get_Ticket",
                   R"({"ticket_id":"TCK-000001"})", "unknown_tool", "", "name"},
        RejectCase{"missing_required", "get_ticket", "{}", "invalid_arguments",
                   "", "required"},
        RejectCase{"string_for_integer", "search_tickets",
                   R"({"query":"x","limit":"42"})", "invalid_arguments",
                   "/limit", "type"},
        RejectCase{"float_for_integer", "search_tickets",
                   R"({"query":"x","limit":2.5})", "invalid_arguments",
                   "/limit", "type"},
        RejectCase{"string_for_boolean", "add_comment",
                   R"({"ticket_id":"TCK-000001","body":"b","internal":"true"})",
                   "invalid_arguments", "/internal", "type"},
        RejectCase{"enum_miss", "update_ticket",
                   R"({"ticket_id":"TCK-000001","priority":"critial"})",
                   "invalid_arguments", "/priority", "enum"},
        RejectCase{"pattern_miss", "get_ticket", R"({"ticket_id":"12"})",
                   "invalid_arguments", "/ticket_id", "pattern"},
        RejectCase{"extra_property", "get_ticket",
                   R"({"ticket_id":"TCK-000001","admin":true})",
                   "invalid_arguments", "/admin", "additionalProperties"},
        RejectCase{"duplicate_key", "get_ticket",
                   R"({"ticket_id":"TCK-000001","ticket_id":"TCK-000002"})",
                   "duplicate_key", "/ticket_id", ""},
        RejectCase{"empty_arguments", "get_ticket", "", "empty_arguments", "",
                   ""},
        RejectCase{"nan", "search_tickets", R"({"query":"x","limit":NaN})",
                   "invalid_json", "/limit", ""},
        RejectCase{"trailing_garbage", "get_ticket",
                   R"({"ticket_id":"TCK-000001"} ok)", "invalid_json", "", ""},
        RejectCase{"oversize", "search_tickets",
                   R"({"query":")" + std::string(200001, 'q') + "\"}",
                   "input_too_large", "", ""}),
    [](const testing::TestParamInfo<RejectCase>& info) {
      return info.param.name;
    });

TEST_F(EngineTest, AllowsExactlyTheValidatedArguments) {
  ValidateCallResponse r = Validate(
      tickets_, OpenAICall("search_tickets",
                           R"({ "limit": 10, "query": "refund \u00e9" })"));
  EXPECT_EQ(r.decision, Decision::kAllow);
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].id, "call_1");
  EXPECT_EQ(r.calls[0].arguments_json,
            "{\"limit\":10,\"query\":\"refund \xc3\xa9\"}");
  EXPECT_TRUE(r.violations.empty());
  EXPECT_TRUE(r.repair_prompt.empty());
  EXPECT_THAT(r.audit_id, testing::MatchesRegex("aud_[0-9a-f]{32}"));
  EXPECT_NE(Validate(tickets_, OpenAICall("get_ticket", "{}")).audit_id,
            r.audit_id);
  EXPECT_EQ(r.snapshot_id, tickets_);
}

TEST_F(EngineTest, ParallelCallsAllowOnlyIfEveryCallIsValid) {
  Json calls = Json::array();
  calls.push_back({{"id", "a"},
                   {"type", "function"},
                   {"function",
                    {{"name", "get_ticket"},
                     {"arguments", R"({"ticket_id":"TCK-000001"})"}}}});
  calls.push_back(
      {{"id", "b"},
       {"type", "function"},
       {"function",
        {{"name", "get_ticket"}, {"arguments", R"({"ticket_id":"bad"})"}}}});
  ValidateCallResponse r = Validate(tickets_, calls.dump());
  EXPECT_EQ(r.decision, Decision::kReject);
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].call_index, 1);
  calls.erase(1);
  EXPECT_EQ(Validate(tickets_, calls.dump()).decision, Decision::kAllow);
}

TEST_F(EngineTest, RequiresApprovalPolicyGivesNeedsApproval) {
  Json call = {{"name", "issue_refund"},
               {"arguments",
                {{"invoice_id", "INV-00000042"},
                 {"amount", {{"value", 12.5}, {"currency", "EUR"}}},
                 {"reason", "duplicate"}}}};
  ValidateCallResponse r = Validate(billing_, call.dump());
  EXPECT_EQ(r.decision, Decision::kNeedsApproval);
  EXPECT_EQ(r.stop_reason, "requires_approval");
  call["arguments"]["amount"]["currency"] = "BTC";
  r = Validate(billing_, call.dump());
  EXPECT_EQ(r.decision, Decision::kReject);
  EXPECT_EQ(r.violations[0].pointer, "/amount/currency");
}

struct TextCase {
  std::string name;
  std::string text;
  bool syntax_repair;
  Decision decision;
  std::string source_or_code;  // Call source on ALLOW, violation code else.
  std::vector<std::string> repairs;
};

class EngineText : public EngineTest,
                   public testing::WithParamInterface<TextCase> {};

constexpr char kArgs[] = R"({"ticket_id":"TCK-000042"})";

TEST_P(EngineText, ReadsCallsWrittenInText) {
  const TextCase& c = GetParam();
  ValidateCallRequest r;
  r.snapshot_id = tickets_;
  r.kind = OutputKind::kText;
  r.output = c.text;
  r.syntax_repair = c.syntax_repair;
  auto out = engine_.ValidateToolCall(r);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->decision, c.decision);
  if (c.decision == Decision::kAllow) {
    ASSERT_EQ(out->calls.size(), 1u);
    EXPECT_EQ(out->calls[0].name, "get_ticket");
    EXPECT_EQ(out->calls[0].arguments_json, kArgs);
    EXPECT_EQ(out->calls[0].source, c.source_or_code);
    EXPECT_EQ(out->calls[0].repairs, c.repairs);
    EXPECT_GE(out->calls[0].candidates_seen, 1);
  } else {
    ASSERT_FALSE(out->violations.empty());
    EXPECT_EQ(out->violations[0].code, c.source_or_code);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, EngineText,
    testing::Values(
        TextCase{"tag",
                 "<tool_call>{\"name\":\"get_ticket\",\"arguments\":" +
                     std::string(kArgs) + "}</tool_call>",
                 false,
                 Decision::kAllow,
                 "tool_call_tag",
                 {}},
        TextCase{"fence_last_wins",
                 "Example:\n```json\n{\"name\":\"get_ticket\",\"arguments\":"
                 "{\"ticket_id\":\"TCK-999999\"}}\n```\nNow the real one:\n"
                 "~~~\n{\"name\":\"get_ticket\",\"arguments\":" +
                     std::string(kArgs) + "}\n~~~\n",
                 false,
                 Decision::kAllow,
                 "fenced_block",
                 {}},
        TextCase{"react",
                 "Thought: look it up\nAction: get_ticket\nAction Input: " +
                     std::string(kArgs),
                 false,
                 Decision::kAllow,
                 "react",
                 {}},
        TextCase{"bare",
                 "I will call {\"name\":\"get_ticket\",\"arguments\":" +
                     std::string(kArgs) + "} now.",
                 false,
                 Decision::kAllow,
                 "bare_object",
                 {}},
        TextCase{
            "damaged_strict",
            "{'name': 'get_ticket', 'arguments': {'ticket_id': 'TCK-000042',}}",
            false,
            Decision::kReject,
            "invalid_json",
            {}},
        TextCase{
            "damaged_repaired",
            "{'name': 'get_ticket', 'arguments': {'ticket_id': 'TCK-000042',}}",
            true,
            Decision::kAllow,
            "bare_object",
            {"single_quotes", "trailing_comma"}},
        TextCase{
            "truncated_strict",
            "{\"name\":\"get_ticket\",\"arguments\":{\"ticket_id\":\"TCK-0",
            false,
            Decision::kReject,
            "truncated_output",
            {}},
        TextCase{
            "truncated_repair",
            "{\"name\":\"get_ticket\",\"arguments\":{\"ticket_id\":\"TCK-0",
            true,
            Decision::kReject,
            "truncated_output",
            {}},
        TextCase{"nothing",
                 "I think we are done here.",
                 false,
                 Decision::kReject,
                 "no_tool_call",
                 {}}),
    [](const testing::TestParamInfo<TextCase>& info) {
      return info.param.name;
    });

// Regression: each of these once came back ALLOW. A second call shape
// beside the one read would run unchecked; a number read as a different
// (here: integer) value would be checked as something the model did not
// write.
TEST_F(EngineTest, SecondCallShapesAndInexactNumbersNeverAllow) {
  const std::string good = R"({"ticket_id":"TCK-000001"})";
  EXPECT_EQ(Validate(tickets_, OpenAICall("get_ticket", good)).decision,
            Decision::kAllow);
  Json legacy = Json::parse(OpenAICall("get_ticket", good));
  legacy["function_call"] = {{"name", "update_ticket"},
                             {"arguments", R"({"ticket_id":"TCK-000001"})"}};
  const std::string anthropic_good =
      R"({"role":"assistant","content":[{"type":"text","text":"Looking."},
          {"type":"tool_use","id":"t1","name":"get_ticket",
           "input":{"ticket_id":"TCK-000001"}}]})";
  EXPECT_EQ(Validate(tickets_, anthropic_good).decision, Decision::kAllow);
  const std::string anthropic_variant =
      R"({"role":"assistant","content":[{"type":"tool_use","id":"t1",
          "name":"get_ticket","input":{"ticket_id":"TCK-000001"}},
          {"type":"Tool_use","id":"t2","name":"update_ticket",
           "input":{"ticket_id":"TCK-000001","status":"closed"}}]})";
  Json text_beside = Json::parse(OpenAICall("get_ticket", good));
  text_beside["content"] =
      R"(<tool_call>{"name":"update_ticket","arguments":{}}</tool_call>)";
  for (const auto& [output, code] :
       std::vector<std::pair<std::string, std::string>>{
           {legacy.dump(), "ambiguous_output"},
           {anthropic_variant, "ambiguous_output"},
           {text_beside.dump(), "ambiguous_output"},
           {OpenAICall("search_tickets",
                       R"({"query":"printer","limit":10.0000000000000001})"),
            "number_inexact"}}) {
    ValidateCallResponse r = Validate(tickets_, output);
    EXPECT_EQ(r.decision, Decision::kReject) << output;
    if (r.violations.empty()) {
      ADD_FAILURE() << "no violation for " << output;
      continue;
    }
    EXPECT_EQ(r.violations[0].code, code) << r.violations[0].message;
  }
}

TEST_F(EngineTest, CallerErrorsAreStatuses) {
  ValidateCallRequest r;
  r.kind = OutputKind::kNative;
  const std::string call =
      OpenAICall("get_ticket", R"({"ticket_id":"TCK-000001"})");
  r.output = call;
  EXPECT_EQ(engine_.ValidateToolCall(r).status().code(),
            absl::StatusCode::kInvalidArgument);  // No snapshot named.
  r.snapshot_id = "sha256:0000";
  EXPECT_EQ(engine_.ValidateToolCall(r).status().code(),
            absl::StatusCode::kNotFound);
  r.snapshot_id = tickets_;
  r.kind = OutputKind::kUnset;
  EXPECT_EQ(engine_.ValidateToolCall(r).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto run = engine_.OpenRun(tickets_, "m", {}, RunLimits{});
  ASSERT_TRUE(run.ok());
  r.kind = OutputKind::kNative;
  r.snapshot_id = "";
  r.run_id = run->run->id();
  r.run_token = "forged";
  EXPECT_EQ(engine_.ValidateToolCall(r).status().code(),
            absl::StatusCode::kPermissionDenied);
  r.run_token = run->token;
  r.snapshot_id = billing_;  // Not the pinned snapshot.
  EXPECT_EQ(engine_.ValidateToolCall(r).status().code(),
            absl::StatusCode::kInvalidArgument);
  r.snapshot_id = "";
  EXPECT_EQ(engine_.ValidateToolCall(r)->decision, Decision::kAllow);
}

TEST_F(EngineTest, BreakerCountsDownStopsAndResets) {
  auto run = engine_.OpenRun(tickets_, "m", {}, RunLimits{3});
  ASSERT_TRUE(run.ok());
  ValidateCallRequest bad;
  bad.run_id = run->run->id();
  bad.run_token = run->token;
  bad.kind = OutputKind::kNative;
  const std::string bad_call =
      OpenAICall("get_ticket", R"({"ticket_id":"nope"})");
  const std::string good_call =
      OpenAICall("get_ticket", R"({"ticket_id":"TCK-000001"})");
  bad.output = bad_call;
  ValidateCallRequest good = bad;
  good.output = good_call;
  ValidateCallRequest garbage = bad;
  garbage.output = "not json";  // Unparseable counts like invalid.
  EXPECT_EQ(engine_.ValidateToolCall(bad)->attempts_left, 2);
  EXPECT_EQ(engine_.ValidateToolCall(garbage)->attempts_left, 1);
  auto third = engine_.ValidateToolCall(bad);
  EXPECT_EQ(third->decision, Decision::kReject);
  EXPECT_EQ(third->attempt, 3);
  EXPECT_EQ(third->attempts_left, 0);
  EXPECT_THAT(third->repair_prompt, HasSubstr("\"attempt\":\"3/3\""));
  auto stopped = engine_.ValidateToolCall(good);
  EXPECT_EQ(stopped->decision, Decision::kStop);
  EXPECT_EQ(stopped->stop_reason, "misformat_circuit_open");
  EXPECT_TRUE(stopped->calls.empty());
  ASSERT_TRUE(engine_.ResetRun(run->run->id(), run->token).ok());
  EXPECT_EQ(engine_.ValidateToolCall(good)->decision, Decision::kAllow);
}

TEST_F(EngineTest, RepairPromptEchoesTheModelsValues) {
  ValidateCallResponse r = Validate(
      tickets_,
      OpenAICall("update_ticket",
                 R"({"ticket_id":"TCK-000001","priority":"critial"})"));
  Json prompt = Json::parse(r.repair_prompt);
  EXPECT_EQ(prompt["error"], "tool_validation_failed");
  EXPECT_EQ(prompt["tool"], "update_ticket");
  EXPECT_EQ(prompt["violations"][0]["pointer"], "/priority");
  EXPECT_EQ(prompt["violations"][0]["received"], "\"critial\"");
  EXPECT_THAT(prompt["violations"][0]["expected"].get<std::string>(),
              HasSubstr("urgent"));
  EXPECT_FALSE(prompt.contains("attempt"));  // Stateless: no loop.
}

class KillSwitchTest : public EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    auto customers = engine_.CreateSnapshot(Example("customers"),
                                            ManifestFormat::kAuto, "customers");
    ASSERT_TRUE(customers.ok()) << customers.status();
    auto run = engine_.OpenRun((*customers)->id(), "m", {}, RunLimits{0, 2, 3});
    ASSERT_TRUE(run.ok());
    run_ = *run;
  }

  ValidateOutputResponse Output(const std::string& body,
                                const std::string& type = "application/json") {
    ValidateOutputRequest r;
    r.run_id = run_.run->id();
    r.run_token = run_.token;
    r.tool_name = "get_customer";
    r.content_type = type;
    r.http_status = output::kNoHttpStatus;
    r.body = body;
    auto out = engine_.ValidateToolOutput(r);
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? *out : ValidateOutputResponse{};
  }

  ValidateCallResponse Call(const std::string& name, const Json& args) {
    ValidateCallRequest r;
    r.run_id = run_.run->id();
    r.run_token = run_.token;
    r.kind = OutputKind::kNative;
    const std::string call = Json{{"name", name}, {"arguments", args}}.dump();
    r.output = call;
    auto out = engine_.ValidateToolCall(r);
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? *out : ValidateCallResponse{};
  }

  OpenedRun run_;
};

TEST_F(KillSwitchTest, McpOutputsAreCheckedAgainstTheOutputSchema) {
  ValidateOutputResponse ok = Output(
      R"({"content":[{"type":"text","text":"Ada"}],"structuredContent":
          {"customer_id":"CUS-000001","name":"Ada","tier":"pro"}})");
  EXPECT_EQ(ok.result.verdict, output::OutputVerdict::kValid);
  EXPECT_FALSE(ok.read_only);
  ValidateOutputResponse drift = Output(
      R"({"content":[],"structuredContent":
          {"customer_id":"CUS-000001","name":"Ada","tier":"platinum"}})");
  EXPECT_EQ(drift.result.verdict, output::OutputVerdict::kInvalid);
  ASSERT_FALSE(drift.result.violations.empty());
  EXPECT_EQ(drift.result.violations[0].code, "output_schema");
  EXPECT_EQ(drift.result.violations[0].pointer, "/structuredContent/tier");
}

TEST_F(KillSwitchTest, InvalidOutputsTurnTheRunReadOnlyForWritesOnly) {
  const Json email = {{"customer_id", "CUS-000001"}, {"email", "a@b.example"}};
  const Json read = {{"customer_id", "CUS-000001"}};
  EXPECT_EQ(Call("update_customer_email", email).decision, Decision::kAllow);
  EXPECT_FALSE(
      Output("<html><body>Maintenance</body></html>", "text/html").read_only);
  EXPECT_TRUE(Output("<!doctype html><p>down</p>").read_only);
  for (int i = 0; i < 7; ++i) {  // More than the breaker's 5: not misformat.
    ValidateCallResponse w = Call("update_customer_email", email);
    EXPECT_EQ(w.decision, Decision::kReject);
    EXPECT_EQ(w.stop_reason, "kill_switch_read_only");
    EXPECT_EQ(w.violations.back().code, "kill_switch_read_only");
  }
  ValidateCallResponse d =
      Call("delete_ticket",
           {{"ticket_id", "TCK-000001"}, {"reason", "duplicate ticket"}});
  EXPECT_EQ(d.stop_reason, "kill_switch_read_only");
  EXPECT_EQ(Call("get_customer", read).decision, Decision::kAllow);
  ASSERT_TRUE(engine_.ResetRun(run_.run->id(), run_.token).ok());
  EXPECT_EQ(Call("update_customer_email", email).decision, Decision::kAllow);
}

TEST_F(KillSwitchTest, UnknownToolOutputIsInvalid) {
  ValidateOutputRequest r;
  r.run_id = run_.run->id();
  r.run_token = run_.token;
  r.tool_name = "get_customr";
  r.content_type = "application/json";
  r.http_status = 200;
  r.body = "{}";
  auto out = engine_.ValidateToolOutput(r);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->result.verdict, output::OutputVerdict::kInvalid);
  EXPECT_EQ(out->result.violations[0].code, "unknown_tool");
}

}  // namespace
}  // namespace toolgate
