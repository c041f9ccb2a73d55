// toolgatectl extract-verdict (exit 0 only for OUTCOME_PASS) and
// validate-output (exit 0 only for OUTPUT_VERDICT_VALID).
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
using testing::NoCall;
using testing::Reply;
using testing::Sent;

class CliVerdictOutputTest : public ::testing::TestWithParam<CliCase> {};

TEST_P(CliVerdictOutputTest, ExitCodeOutputAndRequest) {
  testing::RunCliCase(GetParam());
}

v1::ExtractVerdictResponse Outcome(v1::Outcome outcome,
                                   const std::string& result_json) {
  v1::ExtractVerdictResponse response;
  response.set_outcome(outcome);
  response.set_result_json(result_json);
  return response;
}

std::vector<CliCase> VerdictCases() {
  const std::string block = R"({"reason":"ok","verdict":"pass"})";
  v1::ExtractVerdictResponse stop = Outcome(v1::OUTCOME_CONTRACT_STOP, "");
  stop.set_stop_reason("no_result_block");
  return {
      {.name = "Pass",
       .args = {"extract-verdict", "--envelope", "-", "--result-schema",
                "{tmp}/schema.json", "--run-file", "{tmp}/run.json",
                "--repair", "syntax"},
       .script = Reply("ExtractVerdict", Outcome(v1::OUTCOME_PASS, block)),
       .exit_code = 0,
       .out_has = "\"outcome\": \"OUTCOME_PASS\"",
       .stdin_text = "done\n```json\n{\"verdict\":\"pass\",\"reason\":\"ok\"}\n```\n",
       .files = {{"schema.json", R"({"type":"object"})"},
                 {"run.json", R"({"run_id":"r","run_token":"t"})"}},
       .check = Sent<v1::ExtractVerdictRequest>(
           "ExtractVerdict",
           [](const v1::ExtractVerdictRequest& r) {
             EXPECT_EQ(r.envelope(),
                       "done\n```json\n{\"verdict\":\"pass\",\"reason\":\"ok\"}\n```\n");
             EXPECT_EQ(r.result_schema(), R"({"type":"object"})");
             EXPECT_EQ(r.run_id(), "r");
             EXPECT_EQ(r.run_token(), "t");
             EXPECT_EQ(r.repair(), v1::REPAIR_POLICY_SYNTAX_REPAIR);
           })},
      {.name = "Fail",
       .args = {"extract-verdict", "--envelope", "-"},
       .script = Reply("ExtractVerdict", Outcome(v1::OUTCOME_FAIL, block)),
       .exit_code = 1,
       .out_has = "OUTCOME_FAIL",
       .err_has = "not passed: outcome OUTCOME_FAIL"},
      {.name = "Refused",
       .args = {"extract-verdict", "--envelope", "-"},
       .script = Reply("ExtractVerdict", Outcome(v1::OUTCOME_REFUSED, block)),
       .exit_code = 1},
      {.name = "ContractStop",
       .args = {"extract-verdict", "--envelope", "-"},
       .script = Reply("ExtractVerdict", stop),
       .exit_code = 1,
       .err_has = "no_result_block"},
      {.name = "Unspecified",
       .args = {"extract-verdict", "--envelope", "-"},
       .script = Reply("ExtractVerdict", v1::ExtractVerdictResponse()),
       .exit_code = 1,
       .err_has = "OUTCOME_UNSPECIFIED"},
      {.name = "PassWithoutResult",
       .args = {"extract-verdict", "--envelope", "-"},
       .script = Reply("ExtractVerdict", Outcome(v1::OUTCOME_PASS, "")),
       .exit_code = 1,
       .err_has = "no result_json"},
      {.name = "Unavailable",
       .args = {"extract-verdict", "--envelope", "-"},
       .script = Fail("ExtractVerdict", grpc::StatusCode::UNAVAILABLE),
       .exit_code = 2,
       .err_has = "UNAVAILABLE"},
      {.name = "Deadline",
       .args = {"--timeout", "0.2", "extract-verdict", "--envelope", "-"},
       .script = [](FakeServer& s) { s.service().Hang("ExtractVerdict"); },
       .exit_code = 2,
       .err_has = "DEADLINE_EXCEEDED"},
      {.name = "BadRepair",
       .args = {"extract-verdict", "--repair", "loose"},
       .exit_code = 2,
       .err_has = "--repair must be strict|syntax",
       .check = NoCall("ExtractVerdict")},
  };
}

INSTANTIATE_TEST_SUITE_P(ExtractVerdict, CliVerdictOutputTest,
                         ::testing::ValuesIn(VerdictCases()), CliCaseName);

v1::ValidateToolOutputResponse Verdict(v1::OutputVerdict verdict) {
  v1::ValidateToolOutputResponse response;
  response.set_verdict(verdict);
  return response;
}

std::vector<CliCase> OutputCases() {
  v1::ValidateToolOutputResponse degraded =
      Verdict(v1::OUTPUT_VERDICT_INVALID);
  degraded.set_safe_mode("skip_writes");
  return {
      {.name = "Valid",
       .args = {"validate-output", "--snapshot", "sha256:s", "--tool",
                "search", "--content-type", "application/json", "--status",
                "200", "--body", "{tmp}/body", "--mode", "degrade"},
       .script = Reply("ValidateToolOutput",
                       Verdict(v1::OUTPUT_VERDICT_VALID)),
       .exit_code = 0,
       .out_has = "\"verdict\": \"OUTPUT_VERDICT_VALID\"",
       .files = {{"body", std::string("{\"hits\":[]}\n\xff", 13)}},
       .check = Sent<v1::ValidateToolOutputRequest>(
           "ValidateToolOutput",
           [](const v1::ValidateToolOutputRequest& r) {
             EXPECT_EQ(r.snapshot_id(), "sha256:s");
             EXPECT_EQ(r.tool_name(), "search");
             EXPECT_EQ(r.content_type(), "application/json");
             EXPECT_EQ(r.http_status(), 200);
             // Bytes arrive untouched, invalid UTF-8 included.
             EXPECT_EQ(r.body(), std::string("{\"hits\":[]}\n\xff", 13));
             EXPECT_EQ(r.mode(), v1::OUTPUT_MODE_DEGRADE);
           })},
      {.name = "NoHttpTransport",
       .args = {"validate-output", "--tool", "t", "--status", "-1", "--body",
                "-", "--mode", "fail-closed"},
       .script = Reply("ValidateToolOutput",
                       Verdict(v1::OUTPUT_VERDICT_VALID)),
       .exit_code = 0,
       .stdin_text = "{}",
       .check = Sent<v1::ValidateToolOutputRequest>(
           "ValidateToolOutput",
           [](const v1::ValidateToolOutputRequest& r) {
             EXPECT_EQ(r.http_status(), -1);
             EXPECT_EQ(r.body(), "{}");
             EXPECT_EQ(r.mode(), v1::OUTPUT_MODE_FAIL_CLOSED);
           })},
      {.name = "BodyFromRequestJsonIsBase64",
       .args = {"validate-output", "--request", "-"},
       .script = Reply("ValidateToolOutput",
                       Verdict(v1::OUTPUT_VERDICT_VALID)),
       .exit_code = 0,
       .stdin_text = R"({"toolName":"t","httpStatus":200,"body":"aGk="})",
       .check = Sent<v1::ValidateToolOutputRequest>(
           "ValidateToolOutput",
           [](const v1::ValidateToolOutputRequest& r) {
             EXPECT_EQ(r.body(), "hi");
           })},
      {.name = "InvalidDegraded",
       .args = {"validate-output", "--tool", "t"},
       .script = Reply("ValidateToolOutput", degraded),
       .exit_code = 1,
       .out_has = "\"safe_mode\": \"skip_writes\"",
       .err_has = "not valid: verdict OUTPUT_VERDICT_INVALID"},
      {.name = "Unspecified",
       .args = {"validate-output", "--tool", "t"},
       .script = Reply("ValidateToolOutput", v1::ValidateToolOutputResponse()),
       .exit_code = 1,
       .out_has = "\"read_only\": false",
       .err_has = "OUTPUT_VERDICT_UNSPECIFIED"},
      {.name = "Internal",
       .args = {"validate-output", "--tool", "t"},
       .script = Fail("ValidateToolOutput", grpc::StatusCode::INTERNAL),
       .exit_code = 2,
       .err_has = "INTERNAL"},
      {.name = "BadStatus",
       .args = {"validate-output", "--status", "2xx"},
       .exit_code = 2,
       .err_has = "--status must be an integer",
       .check = NoCall("ValidateToolOutput")},
      {.name = "BadMode",
       .args = {"validate-output", "--mode", "open"},
       .exit_code = 2,
       .err_has = "--mode must be fail-closed|degrade",
       .check = NoCall("ValidateToolOutput")},
  };
}

INSTANTIATE_TEST_SUITE_P(ValidateOutput, CliVerdictOutputTest,
                         ::testing::ValuesIn(OutputCases()), CliCaseName);

}  // namespace
}  // namespace client
}  // namespace toolgate
