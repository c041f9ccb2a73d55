#include "core/mesh/mcp_answer.h"

#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/mesh/mcp_turn.h"
#include "core/mesh/tool_response.h"

namespace toolgate {
namespace mesh {
namespace {

using Kind = AnswerPlan::Kind;

ValidateOutputRequest OutputRequest(const AnswerAsk& ask,
                                    absl::string_view tool) {
  ValidateOutputRequest request;
  request.snapshot_id = ask.snapshot_id;
  request.run_id = ask.run_id;
  request.run_token = ask.run_token;
  request.tool_name = std::string(tool);
  request.mode = output::OutputMode::kFailClosed;
  request.cancel = ask.cancel;
  request.source = ask.source;
  request.mcp_request_id = ask.mcp_request_id;
  return request;
}

ResultCheck Judge(McpDecider& decider, const ValidateOutputRequest& request) {
  ResultCheck out;
  absl::StatusOr<ValidateOutputResponse> checked =
      decider.ValidateToolOutput(request);
  if (!checked.ok()) {
    out.label = "ERROR";
    out.error = ErrorForEngineStatus(checked.status());
    return out;
  }
  out.valid = checked->result.verdict == output::OutputVerdict::kValid;
  out.label = out.valid ? "VALID" : "INVALID";
  for (const auto& v : checked->result.violations) {
    out.violations.push_back(v.code);
  }
  out.read_only = checked->read_only;
  if (!out.valid) out.error = ErrorForOutput(*checked);
  return out;
}

// A reader's refusal ("reason: detail") as the deny the agent reads.
RpcError Reasoned(const absl::Status& status) {
  const std::string message(status.message());
  return DeniedError(message.substr(0, message.find(':')), message);
}

std::optional<RpcError> NotOk(int status) {
  if (status >= 200 && status <= 299) return std::nullopt;
  return DeniedError("http_status",
                     absl::StrCat("the tool server answered HTTP ", status));
}

// Only an answer sent as its bytes is checked: the client undoes any
// other coding (httpx, requests and fetch decode gzip, deflate and br), so
// what it reads would not be what toolgate read. An ASCII-only deflate
// stream reads as clean text to toolgate and as anything to the client.
std::optional<RpcError> Encoded(absl::string_view coding) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(coding);
  if (trimmed.empty() || absl::EqualsIgnoreCase(trimmed, "identity")) {
    return std::nullopt;
  }
  return DeniedError(
      "unsupported_content_encoding",
      absl::StrCat("the tool server answered with Content-Encoding \"", coding,
                   "\": toolgate checks only an answer sent as it is "
                   "(identity), since the client would read the decoded "
                   "bytes"));
}

int Rank(absl::string_view label) {
  if (label == "ERROR") return 3;
  if (label == "INVALID") return 2;
  if (label == "DENIED") return 1;
  return 0;
}

// One check's result in the verdict; its error, if any, is returned.
std::optional<RpcError> Merge(ResultCheck check, AnswerVerdict* verdict) {
  if (Rank(check.label) > Rank(verdict->label)) verdict->label = check.label;
  verdict->checked =
      verdict->checked || check.label == "VALID" || check.label == "INVALID";
  for (std::string& v : check.violations) {
    verdict->violations.push_back(std::move(v));
  }
  verdict->read_only = verdict->read_only || check.read_only;
  return std::move(check.error);
}

AnswerVerdict Refused(const AnswerPlan& plan, const RpcError& error) {
  AnswerVerdict verdict;
  verdict.answer = plan.Refusal(error);
  return verdict;
}

AnswerVerdict Single(const AnswerPlan& plan, ResultCheck check) {
  AnswerVerdict verdict;
  verdict.label = "VALID";
  std::optional<RpcError> error = Merge(std::move(check), &verdict);
  verdict.valid = !error.has_value();
  if (error.has_value()) verdict.answer = plan.Refusal(*error);
  return verdict;
}

AnswerVerdict CheckCall(McpDecider& decider, const McpLimits& limits,
                        const AnswerPlan& plan, const AnswerAsk& ask,
                        const HttpAnswer& answer) {
  if (std::optional<RpcError> error = NotOk(answer.status)) {
    return Refused(plan, *error);
  }
  absl::StatusOr<Json> response =
      FindToolResponse(answer.content_type, answer.body, plan.id, limits.json);
  if (!response.ok()) return Refused(plan, Reasoned(response.status()));
  return Single(plan, CheckToolResult(decider, ask, plan.tool, *response));
}

AnswerVerdict CheckRest(McpDecider& decider, const AnswerPlan& plan,
                        const AnswerAsk& ask, const HttpAnswer& answer) {
  ValidateOutputRequest request = OutputRequest(ask, plan.tool);
  request.content_type = answer.content_type;
  request.http_status = answer.status;
  request.body = answer.body;
  return Single(plan, Judge(decider, request));
}

// Every message with an id is answered; each tool call's result checked.
AnswerVerdict CheckBatch(McpDecider& decider, const McpLimits& limits,
                         const AnswerPlan& plan, const AnswerAsk& ask,
                         const HttpAnswer& answer) {
  if (std::optional<RpcError> error = NotOk(answer.status)) {
    return Refused(plan, *error);
  }
  const std::vector<McpMessage>& messages = plan.body.messages;
  std::vector<Json> ids;
  for (const McpMessage& m : messages) {
    if (!m.id.is_null()) ids.push_back(m.id);
  }
  absl::StatusOr<std::vector<Json>> responses =
      FindBatchResponses(answer.content_type, answer.body, ids, limits.json);
  if (!responses.ok()) return Refused(plan, Reasoned(responses.status()));
  AnswerVerdict verdict;
  verdict.label = "VALID";
  std::vector<std::optional<RpcError>> errors(messages.size());
  bool refused = false;
  for (size_t i = 0, k = 0; i < messages.size(); ++i) {
    if (messages[i].id.is_null()) continue;
    const Json& response = (*responses)[k++];
    if (messages[i].kind != McpKind::kToolCall) continue;
    errors[i] = Merge(CheckToolResult(decider, ask, messages[i].tool, response),
                      &verdict);
    refused = refused || errors[i].has_value();
  }
  verdict.valid = !refused;
  if (refused) {
    verdict.answer = ErrorAnswer(
        plan.body, errors,
        DeniedError("batch_answer_withheld",
                    "this message was answered, but the answer of another "
                    "tool call of the batch failed its check, so the "
                    "batch's answers are withheld (its tools ran)"));
  }
  return verdict;
}

}  // namespace

ResultCheck CheckToolResult(McpDecider& decider, const AnswerAsk& ask,
                            absl::string_view tool, const Json& response) {
  absl::StatusOr<std::string> result = ToolResultBody(response);
  if (!result.ok()) {
    ResultCheck out;
    out.error = Reasoned(result.status());
    return out;
  }
  ValidateOutputRequest request = OutputRequest(ask, tool);
  request.content_type = "application/json";
  request.http_status = output::kNoHttpStatus;
  request.body = *result;
  return Judge(decider, request);
}

AnswerVerdict CheckAnswer(McpDecider& decider, const McpLimits& limits,
                          const AnswerPlan& plan, const AnswerAsk& ask,
                          const HttpAnswer& answer) {
  if (plan.kind == Kind::kPass) {
    AnswerVerdict verdict;
    verdict.valid = true;
    verdict.label = "PASS_THROUGH";
    return verdict;
  }
  if (plan.kind == Kind::kRefuse) return Refused(plan, plan.refusal);
  if (std::optional<RpcError> error = Encoded(answer.content_encoding)) {
    return Refused(plan, *error);
  }
  if (ask.snapshot_id.empty() && ask.run_id.empty()) {
    return Refused(plan, DeniedError("no_snapshot",
                                     "neither x-toolgate-snapshot nor a run"));
  }
  switch (plan.kind) {
    case Kind::kRest:
      return CheckRest(decider, plan, ask, answer);
    case Kind::kCall:
      return CheckCall(decider, limits, plan, ask, answer);
    case Kind::kBatch:
      return CheckBatch(decider, limits, plan, ask, answer);
    case Kind::kPass:
    case Kind::kRefuse:
      break;
  }
  return Refused(plan, plan.refusal);
}

}  // namespace mesh
}  // namespace toolgate
