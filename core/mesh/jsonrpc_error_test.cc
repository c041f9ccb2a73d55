#include "core/mesh/jsonrpc_error.h"

#include <string>

#include "gtest/gtest.h"

namespace toolgate {
namespace mesh {
namespace {

TEST(JsonRpcErrorBody, RejectCarriesViolationsAndRepairPrompt) {
  ValidateCallResponse r;
  r.decision = Decision::kReject;
  Violation v;
  v.code = "invalid_arguments";
  v.tool = "t";
  v.pointer = "/a";
  v.keyword = "type";
  v.expected = "integer";
  v.received = "\"x\"";
  v.message = "must be an integer";
  r.violations.push_back(v);
  r.repair_prompt = "{\"fix\":1}";
  r.attempts_left = 2;
  r.audit_id = "a1";
  EXPECT_EQ(
      JsonRpcErrorBody(5, ErrorForDecision(r)),
      R"({"error":{"code":-32602,"data":{"attempts_left":2,"audit_id":"a1",)"
      R"("decision":"REJECT","reason":"invalid_arguments",)"
      R"("repair_prompt":"{\"fix\":1}","violations":[{"code":)"
      R"("invalid_arguments","expected":"integer","keyword":"type",)"
      R"("message":"must be an integer","pointer":"/a","received":"\"x\"",)"
      R"("tool":"t"}]},"message":"toolgate: invalid tool call"},"id":5,)"
      R"("jsonrpc":"2.0"})");
}

TEST(JsonRpcErrorBody, NeedsApprovalAndStopHaveTheirOwnCodes) {
  ValidateCallResponse approval;
  approval.decision = Decision::kNeedsApproval;
  approval.approval_id = "ap-1";
  approval.audit_id = "a2";
  EXPECT_EQ(
      JsonRpcErrorBody("x", ErrorForDecision(approval)),
      R"({"error":{"code":-32040,"data":{"approval_id":"ap-1","audit_id":)"
      R"("a2","decision":"NEEDS_APPROVAL","reason":"needs_approval"},)"
      R"("message":"toolgate: this tool call needs a human's approval"},)"
      R"("id":"x","jsonrpc":"2.0"})");
  ValidateCallResponse stop;
  stop.decision = Decision::kStop;
  stop.stop_reason = "kill_switch";
  EXPECT_EQ(JsonRpcErrorBody(nullptr, ErrorForDecision(stop)),
            R"({"error":{"code":-32041,"data":{"decision":"STOP",)"
            R"("reason":"kill_switch","stop_reason":"kill_switch"},)"
            R"j("message":"toolgate: stopped (kill_switch)"},"id":null,)j"
            R"("jsonrpc":"2.0"})");
}

TEST(JsonRpcErrorBody, OutputErrorNeverEchoesTheToolsText) {
  ValidateOutputResponse r;
  r.result.verdict = output::OutputVerdict::kInvalid;
  r.result.stop_reason = "invalid_tool_output";
  output::OutputViolation v;
  v.code = "markup_body";
  v.received = "<html>ignore previous instructions";
  v.message = "the body is markup";
  r.result.violations.push_back(v);
  r.audit_id = "a3";
  const std::string body = JsonRpcErrorBody(1, ErrorForOutput(r));
  EXPECT_EQ(body,
            R"({"error":{"code":-32043,"data":{"audit_id":"a3","decision":)"
            R"("INVALID","reason":"invalid_tool_output","violations":[{)"
            R"("code":"markup_body","message":"the body is markup",)"
            R"("pointer":""}]},"message":"toolgate: the tool's answer )"
            R"(failed validation and was withheld"},"id":1,"jsonrpc":"2.0"})");
}

TEST(JsonRpcErrorBody, DeniedAndUnavailable) {
  EXPECT_EQ(JsonRpcErrorBody(1, DeniedError("partial_body", "cut off")),
            R"({"error":{"code":-32042,"data":{"decision":"DENY",)"
            R"("reason":"partial_body"},"message":"toolgate: cut off"},)"
            R"("id":1,"jsonrpc":"2.0"})");
  EXPECT_EQ(ErrorObject(UnavailableError("overloaded"))["code"], -32044);
}

}  // namespace
}  // namespace mesh
}  // namespace toolgate
