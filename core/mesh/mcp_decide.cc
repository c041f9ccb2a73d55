#include "core/mesh/mcp_decide.h"

#include <utility>

#include "core/mesh/mcp_request.h"
#include "core/mesh/mcp_turn.h"

namespace toolgate {
namespace mesh {
namespace {

absl::StatusOr<ValidateCallResponse> Validate(McpDecider& decider,
                                              const McpAsk& ask,
                                              absl::string_view output) {
  ValidateCallRequest call;
  call.snapshot_id = ask.snapshot_id;
  call.run_id = ask.run_id;
  call.run_token = ask.run_token;
  call.kind = OutputKind::kNative;
  call.output = output;
  call.approval_id = ask.approval_id;
  call.cancel = ask.cancel;
  call.source = ask.source;
  call.mcp_request_id = ask.mcp_request_id;
  call.trace = ask.trace;
  // Envoy forwards the request as it came: nothing toolgate would rewrite
  // (policy.coerce, strip_html) can reach the tool rewritten.
  call.forward_as_sent = true;
  return decider.ValidateToolCall(call);
}

// A body toolgate cannot read as a whole.
RpcError BodyError(const absl::Status& status) {
  if (JsonErrorCode(status) == kInputTooLarge) {
    return DeniedError("body_too_large", status.message());
  }
  return DeniedError("unreadable_body", status.message());
}

absl::string_view EngineErrorLabel(const RpcError& error) {
  return error.code == kDeniedCode ? "DENIED_RUN" : "ERROR";
}

// Under NEEDS_APPROVAL: which calls' tools ask for a human. When the
// decider cannot tell, none is marked: then every call is told.
std::vector<bool> NeedingApproval(McpDecider& decider,
                                  const ValidateCallResponse& decided) {
  std::vector<bool> none(decided.calls.size(), false);
  if (decided.decision != Decision::kNeedsApproval) return none;
  std::vector<std::string> tools;
  tools.reserve(decided.calls.size());
  for (const CallReport& call : decided.calls) tools.push_back(call.name);
  absl::StatusOr<std::vector<bool>> marked =
      decider.RequiresApproval(decided.snapshot_id, tools);
  if (!marked.ok() || marked->size() != tools.size()) return none;
  return *std::move(marked);
}

McpDecision DeniedBody(const McpBody& body,
                       const std::vector<std::optional<RpcError>>& errors,
                       absl::string_view label) {
  McpDecision d;
  d.answer = DeniedAnswer(body, errors);
  d.label = label;
  return d;
}

// The turn's decision, once the engine gave one.
McpDecision Decided(McpDecider& decider, const McpBody& body,
                    const McpTurn& turn, ValidateCallResponse decided) {
  McpDecision d;
  if (decided.decision == Decision::kAllow &&
      !DecidedAsSent(body, turn, decided)) {
    // Never expected (the request is decided as sent): refused, not
    // passed with calls nobody checked.
    d = DeniedBody(body,
                   CallErrors(body, mesh::UnavailableError(
                                        "the calls decided are not the calls "
                                        "sent")),
                   "ERROR");
  } else if (decided.decision == Decision::kAllow) {
    d.allowed = true;
    d.label = "ALLOW";
    d.audit_ids.push_back(decided.audit_id);
    if (!body.batch) d.tool = body.messages[0].tool;
  } else {
    d = DeniedBody(body,
                   TurnErrors(body, turn, decided,
                              NeedingApproval(decider, decided)),
                   DecisionName(decided.decision));
  }
  d.called = true;
  d.snapshot_id = decided.snapshot_id;
  d.decided = std::move(decided);
  return d;
}

}  // namespace

McpDecision Denied(const Json& id, const RpcError& error) {
  McpDecision d;
  d.answer = {{"jsonrpc", "2.0"}, {"id", id}, {"error", ErrorObject(error)}};
  return d;
}

McpDecision DecideMcpRequest(McpDecider& decider, const McpLimits& limits,
                             const McpAsk& ask, const McpRequest& request) {
  if (!request.status.ok()) return Denied(nullptr, BodyError(request.status));
  const McpBody& body = request.body;
  // A message not let through denies the body before any decision: nothing
  // is spent on its calls.
  std::vector<std::optional<RpcError>> refused;
  bool any_refused = false;
  for (const McpMessage& m : body.messages) {
    refused.push_back(RefusedMessage(m));
    any_refused = any_refused || refused.back().has_value();
  }
  if (any_refused) return DeniedBody(body, refused, "DENIED_REQUEST");
  const McpTurn turn = BuildTurn(body, limits.json);
  if (turn.calls.empty()) {
    McpDecision d;
    d.allowed = true;
    d.label = "PASS_THROUGH";
    return d;
  }
  absl::StatusOr<ValidateCallResponse> decided =
      Validate(decider, ask, turn.output);
  if (!decided.ok()) {
    const RpcError error = ErrorForEngineStatus(decided.status());
    return DeniedBody(body, CallErrors(body, error), EngineErrorLabel(error));
  }
  return Decided(decider, body, turn, *std::move(decided));
}

McpDecision DecideRestCall(McpDecider& decider, const McpLimits& limits,
                           const McpAsk& ask, absl::string_view tool_path,
                           absl::string_view path,
                           absl::string_view body_text) {
  if (QueryOrFragment(path)) {
    return Denied(nullptr,
                  DeniedError("query_not_allowed",
                              "a REST tool route takes its arguments from "
                              "the body alone: a query string or fragment "
                              "('?', '#') is refused, never forwarded "
                              "unchecked"));
  }
  absl::StatusOr<std::string> tool = MatchToolPath(tool_path, path);
  if (!tool.ok()) {
    return Denied(nullptr, DeniedError("no_tool", tool.status().message()));
  }
  absl::StatusOr<Json> arguments =
      ReadMeshJson(body_text, limits.json);
  if (!arguments.ok()) return Denied(nullptr, BodyError(arguments.status()));
  // The call as one MCP message, so that it is decided and checked as one.
  McpBody body;
  McpMessage& m = body.messages.emplace_back();
  m.kind = McpKind::kToolCall;
  m.tool = *tool;
  m.arguments_json = CanonicalJson(*arguments);
  m.params_json = CanonicalJson({{"name", *tool}, {"arguments", *arguments}});
  const McpTurn turn = BuildTurn(body, limits.json);
  absl::StatusOr<ValidateCallResponse> decided =
      Validate(decider, ask, turn.output);
  if (!decided.ok()) {
    const RpcError error = ErrorForEngineStatus(decided.status());
    McpDecision d = Denied(nullptr, error);
    d.label = EngineErrorLabel(error);
    return d;
  }
  return Decided(decider, body, turn, *std::move(decided));
}

}  // namespace mesh
}  // namespace toolgate
