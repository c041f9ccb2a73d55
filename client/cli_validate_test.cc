// toolgatectl validate: exit 0 only for a well-formed DECISION_ALLOW.
#include <string>
#include <vector>

#include "client/cli.h"
#include "client/cli_test_util.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace client {
namespace {

using testing::CliCase;
using testing::CliCaseName;
using testing::Fail;
using testing::FakeServer;
using testing::FakeToolGate;
using testing::NoCall;
using testing::Reply;
using testing::Sent;

v1::ValidateToolCallResponse Decided(v1::Decision decision) {
  v1::ValidateToolCallResponse response;
  response.set_decision(decision);
  v1::ToolCall* call = response.add_calls();
  call->set_name("search");
  call->set_arguments_json(R"({"q":"x"})");
  return response;
}

class CliValidateTest : public ::testing::TestWithParam<CliCase> {};

TEST_P(CliValidateTest, ExitCodeOutputAndRequest) {
  testing::RunCliCase(GetParam());
}

std::vector<CliCase> ValidateCases() {
  v1::ValidateToolCallResponse nameless = Decided(v1::DECISION_ALLOW);
  nameless.mutable_calls(0)->clear_name();
  return {
      {.name = "AllowFromStdin",
       .args = {"validate", "--snapshot", "sha256:s", "--native", "-"},
       .script = Reply("ValidateToolCall", Decided(v1::DECISION_ALLOW)),
       .exit_code = 0,
       .out_has = "\"decision\": \"DECISION_ALLOW\"",
       .stdin_text = R"({"tool_calls":[]})",
       .check = Sent<v1::ValidateToolCallRequest>(
           "ValidateToolCall",
           [](const v1::ValidateToolCallRequest& r) {
             EXPECT_EQ(r.snapshot_id(), "sha256:s");
             EXPECT_EQ(r.native_json(), R"({"tool_calls":[]})");
           })},
      {.name = "Reject",
       .args = {"validate", "--snapshot", "s", "--text", "-"},
       .script = Reply("ValidateToolCall", Decided(v1::DECISION_REJECT)),
       .exit_code = 1,
       .out_has = "DECISION_REJECT",
       .err_has = "denied: decision DECISION_REJECT"},
      {.name = "Stop",
       .args = {"validate", "--snapshot", "s"},
       .script = Reply("ValidateToolCall", Decided(v1::DECISION_STOP)),
       .exit_code = 1,
       .err_has = "DECISION_STOP"},
      {.name = "NeedsApproval",
       .args = {"validate", "--snapshot", "s"},
       .script =
           Reply("ValidateToolCall", Decided(v1::DECISION_NEEDS_APPROVAL)),
       .exit_code = 1},
      {.name = "WithApprovalId",
       .args = {"validate", "--run", "r", "--token", "t", "--approval-id",
                "apr_1", "--native", "-"},
       .script = Reply("ValidateToolCall", Decided(v1::DECISION_ALLOW)),
       .exit_code = 0,
       .stdin_text = R"({"name":"wire","arguments":{}})",
       .check = Sent<v1::ValidateToolCallRequest>(
           "ValidateToolCall",
           [](const v1::ValidateToolCallRequest& r) {
             EXPECT_EQ(r.approval_id(), "apr_1");
             EXPECT_EQ(r.run_id(), "r");
           })},
      {.name = "UnspecifiedPrintsDefaults",
       .args = {"validate", "--snapshot", "s"},
       .script = Reply("ValidateToolCall", v1::ValidateToolCallResponse()),
       .exit_code = 1,
       .out_has = "\"attempts_left\": 0",
       .err_has = "DECISION_UNSPECIFIED"},
      {.name = "AllowWithNamelessCall",
       .args = {"validate", "--snapshot", "s"},
       .script = Reply("ValidateToolCall", nameless),
       .exit_code = 1,
       .err_has = "no name"},
      {.name = "Unavailable",
       .args = {"validate", "--snapshot", "s"},
       .script = Fail("ValidateToolCall", grpc::StatusCode::UNAVAILABLE),
       .exit_code = 2,
       .err_has = "UNAVAILABLE"},
      {.name = "Internal",
       .args = {"validate", "--snapshot", "s"},
       .script = Fail("ValidateToolCall", grpc::StatusCode::INTERNAL),
       .exit_code = 2,
       .err_has = "INTERNAL"},
      {.name = "Deadline",
       .args = {"validate", "--snapshot", "s", "--timeout", "0.2"},
       .script = [](FakeServer& s) { s.service().Hang("ValidateToolCall"); },
       .exit_code = 2,
       .err_has = "DEADLINE_EXCEEDED"},
      {.name = "ServerDown",
       .args = {"validate", "--addr", "{closed}", "--snapshot", "s"},
       .exit_code = 2,
       .err_has = "UNAVAILABLE"},
      {.name = "RunFileTextRepair",
       .args = {"validate", "--run-file", "{tmp}/run.json", "--text",
                "{tmp}/out.txt", "--repair", "syntax"},
       .script = Reply("ValidateToolCall", Decided(v1::DECISION_ALLOW)),
       .exit_code = 0,
       .files = {{"run.json",
                  R"({"run_id":"r1","run_token":"t1","snapshot_id":"s"})"},
                 {"out.txt", "call search(q=1)"}},
       .check = Sent<v1::ValidateToolCallRequest>(
           "ValidateToolCall",
           [](const v1::ValidateToolCallRequest& r) {
             EXPECT_EQ(r.run_id(), "r1");
             EXPECT_EQ(r.run_token(), "t1");
             EXPECT_EQ(r.snapshot_id(), "");
             EXPECT_EQ(r.text(), "call search(q=1)");
             EXPECT_EQ(r.repair(), v1::REPAIR_POLICY_SYNTAX_REPAIR);
           })},
      {.name = "FlagsOverrideRequestJson",
       .args = {"validate", "--request", "{tmp}/req.json", "--token", "t2"},
       .script = Reply("ValidateToolCall", Decided(v1::DECISION_ALLOW)),
       .exit_code = 0,
       .files = {{"req.json",
                  R"({"runId":"r","runToken":"t","nativeJson":"[]",)"
                  R"("repair":"REPAIR_POLICY_STRICT"})"}},
       .check = Sent<v1::ValidateToolCallRequest>(
           "ValidateToolCall",
           [](const v1::ValidateToolCallRequest& r) {
             EXPECT_EQ(r.run_id(), "r");
             EXPECT_EQ(r.run_token(), "t2");
             EXPECT_EQ(r.native_json(), "[]");
             EXPECT_EQ(r.repair(), v1::REPAIR_POLICY_STRICT);
           })},
      {.name = "DuplicateKeyInRequest",
       .args = {"validate", "--request", "-"},
       .exit_code = 2,
       .err_has = "duplicate_key",
       .stdin_text = R"({"snapshotId":"a","snapshotId":"b"})",
       .check = NoCall("ValidateToolCall")},
      {.name = "UnknownFieldInRequest",
       .args = {"validate", "--request", "-"},
       .exit_code = 2,
       .err_has = "usage:",
       .stdin_text = R"({"snapshotId":"a","allow":true})",
       .check = NoCall("ValidateToolCall")},
      {.name = "NativeAndText",
       .args = {"validate", "--native", "-", "--text", "{tmp}/x"},
       .exit_code = 2,
       .err_has = "give one of --native, --text or --stream",
       .files = {{"x", "t"}},
       .check = NoCall("ValidateToolCall")},
      {.name = "StdinTwice",
       .args = {"validate", "--request", "-", "--native", "-"},
       .exit_code = 2,
       .err_has = "cannot both read stdin",
       .stdin_text = "{}",
       .check = NoCall("ValidateToolCall")},
      {.name = "BadRepair",
       .args = {"validate", "--repair", "lenient"},
       .exit_code = 2,
       .err_has = "--repair must be strict|syntax",
       .check = NoCall("ValidateToolCall")},
      {.name = "TextFormat",
       .args = {"validate", "--snapshot", "s", "--text", "{tmp}/out.txt",
                "--text-format", "DeepSeek_V3"},
       .script = Reply("ValidateToolCall", Decided(v1::DECISION_ALLOW)),
       .exit_code = 0,
       .files = {{"out.txt", "[f(a=1)]"}},
       .check = Sent<v1::ValidateToolCallRequest>(
           "ValidateToolCall",
           [](const v1::ValidateToolCallRequest& r) {
             EXPECT_EQ(r.text(), "[f(a=1)]");
             EXPECT_EQ(r.text_format(), v1::TEXT_FORMAT_DEEPSEEK_V3);
           })},
      {.name = "TextFormatFullEnumName",
       .args = {"validate", "--snapshot", "s", "--text", "{tmp}/out.txt",
                "--text-format", "TEXT_FORMAT_LLAMA3_JSON"},
       .script = Reply("ValidateToolCall", Decided(v1::DECISION_ALLOW)),
       .exit_code = 0,
       .files = {{"out.txt", "{}"}},
       .check = Sent<v1::ValidateToolCallRequest>(
           "ValidateToolCall",
           [](const v1::ValidateToolCallRequest& r) {
             EXPECT_EQ(r.text_format(), v1::TEXT_FORMAT_LLAMA3_JSON);
           })},
      {.name = "TextFormatFromRequestJson",
       .args = {"validate", "--request", "-"},
       .script = Reply("ValidateToolCall", Decided(v1::DECISION_ALLOW)),
       .exit_code = 0,
       .stdin_text = R"({"snapshotId":"s","text":"x",)"
                     R"("textFormat":"TEXT_FORMAT_GRANITE"})",
       .check = Sent<v1::ValidateToolCallRequest>(
           "ValidateToolCall",
           [](const v1::ValidateToolCallRequest& r) {
             EXPECT_EQ(r.text_format(), v1::TEXT_FORMAT_GRANITE);
           })},
      {.name = "BadTextFormat",
       .args = {"validate", "--snapshot", "s", "--text-format", "gemma"},
       .exit_code = 2,
       .err_has = "--text-format must be hermes|mistral|llama3_json|"
                  "pythonic|granite|deepseek_v3, got \"gemma\"",
       .check = NoCall("ValidateToolCall")},
      {.name = "UnspecifiedTextFormat",
       .args = {"validate", "--snapshot", "s", "--text-format", "unspecified"},
       .exit_code = 2,
       .err_has = "got \"unspecified\"",
       .check = NoCall("ValidateToolCall")},
      {.name = "RunFileWithoutToken",
       .args = {"validate", "--run-file", "{tmp}/run.json"},
       .exit_code = 2,
       .err_has = "needs both run_id and run_token",
       .files = {{"run.json", R"({"run_id":"r1"})"}},
       .check = NoCall("ValidateToolCall")},
      {.name = "StreamSseCapture",
       .args = {"validate", "--snapshot", "s", "--stream", "{tmp}/cap.sse",
                "--stream-format", "anthropic_messages"},
       .script = Reply("ValidateToolCall", Decided(v1::DECISION_ALLOW)),
       .exit_code = 0,
       .files = {{"cap.sse",
                  "event: message_start\r\ndata: {\"type\":\"message_start\"}"
                  "\r\n\r\n: keep-alive\n\nevent: message_stop\n"
                  "data: {\"type\":\"message_stop\"}\n\n"}},
       .check = Sent<v1::ValidateToolCallRequest>(
           "ValidateToolCall",
           [](const v1::ValidateToolCallRequest& r) {
             ASSERT_TRUE(r.has_stream_events());
             EXPECT_EQ(r.stream_events().format(),
                       v1::STREAM_FORMAT_ANTHROPIC_MESSAGES);
             ASSERT_EQ(r.stream_events().events_size(), 2);
             EXPECT_EQ(r.stream_events().events(0),
                       R"({"type":"message_start"})");
             EXPECT_EQ(r.stream_events().events(1),
                       R"({"type":"message_stop"})");
           })},
      {.name = "StreamLinesFromStdinUpperCaseFormat",
       .args = {"validate", "--snapshot", "s", "--stream", "-",
                "--stream-format", "OPENAI_CHAT"},
       .script = Reply("ValidateToolCall", Decided(v1::DECISION_REJECT)),
       .exit_code = 1,
       .err_has = "DECISION_REJECT",
       .stdin_text = "{\"choices\":[]}\n\n[DONE]\n",
       .check = Sent<v1::ValidateToolCallRequest>(
           "ValidateToolCall",
           [](const v1::ValidateToolCallRequest& r) {
             EXPECT_EQ(r.stream_events().format(),
                       v1::STREAM_FORMAT_OPENAI_CHAT);
             ASSERT_EQ(r.stream_events().events_size(), 2);
             EXPECT_EQ(r.stream_events().events(1), "[DONE]");
           })},
      {.name = "StreamFullEnumName",
       .args = {"validate", "--stream", "-", "--stream-format",
                "STREAM_FORMAT_GEMINI"},
       .script = Reply("ValidateToolCall", Decided(v1::DECISION_ALLOW)),
       .exit_code = 0,
       .stdin_text = "{}\n",
       .check = Sent<v1::ValidateToolCallRequest>(
           "ValidateToolCall",
           [](const v1::ValidateToolCallRequest& r) {
             EXPECT_EQ(r.stream_events().format(), v1::STREAM_FORMAT_GEMINI);
           })},
      {.name = "StreamWithoutFormat",
       .args = {"validate", "--stream", "-"},
       .exit_code = 2,
       .err_has = "--stream and --stream-format go together",
       .stdin_text = "{}",
       .check = NoCall("ValidateToolCall")},
      {.name = "StreamFormatWithoutStream",
       .args = {"validate", "--stream-format", "gemini"},
       .exit_code = 2,
       .err_has = "--stream and --stream-format go together",
       .check = NoCall("ValidateToolCall")},
      {.name = "BadStreamFormat",
       .args = {"validate", "--stream", "-", "--stream-format", "openai"},
       .exit_code = 2,
       .err_has = "--stream-format must be openai_chat|",
       .stdin_text = "{}",
       .check = NoCall("ValidateToolCall")},
      {.name = "UnspecifiedStreamFormat",
       .args = {"validate", "--stream", "-", "--stream-format", "unspecified"},
       .exit_code = 2,
       .err_has = "got \"unspecified\"",
       .stdin_text = "{}",
       .check = NoCall("ValidateToolCall")},
      {.name = "StreamAndNative",
       .args = {"validate", "--stream", "-", "--stream-format", "gemini",
                "--native", "{tmp}/x"},
       .exit_code = 2,
       .err_has = "give one of --native, --text or --stream",
       .files = {{"x", "{}"}},
       .check = NoCall("ValidateToolCall")},
      // A FILE argument is a regular file (stdin is "-"): a device or a
      // directory is refused by name, never read.
      {.name = "DeviceFile",
       .args = {"validate", "--native", "/dev/zero"},
       .exit_code = 2,
       .err_has = "--native: /dev/zero: is a character device, not a regular "
                  "file",
       .check = NoCall("ValidateToolCall")},
      {.name = "DirectoryFile",
       .args = {"validate", "--text", "{tmp}"},
       .exit_code = 2,
       .err_has = ": is a directory, not a regular file",
       .check = NoCall("ValidateToolCall")},
      {.name = "MissingFile",
       .args = {"validate", "--native", "{tmp}/absent.json"},
       .exit_code = 2,
       .err_has = "absent.json: cannot read",
       .check = NoCall("ValidateToolCall")},
  };
}

INSTANTIATE_TEST_SUITE_P(Cases, CliValidateTest,
                         ::testing::ValuesIn(ValidateCases()), CliCaseName);


}  // namespace
}  // namespace client
}  // namespace toolgate
