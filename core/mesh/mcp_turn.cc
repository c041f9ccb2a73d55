#include "core/mesh/mcp_turn.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/gate/calls.h"

namespace toolgate {
namespace mesh {
namespace {

// A call's params read by the native reader as exactly one MCP call, with
// nothing refused: then its name and arguments are the call.
bool ReadClean(const RawCalls& read) {
  return read.error.ok() && read.calls.size() == 1 &&
         read.calls[0].error.ok() && read.calls[0].source == "mcp_call";
}

// The turn's decision narrowed to what one call gets: the violations `own`
// says are its, and the turn's reason only when it is the call's.
ValidateCallResponse Narrowed(const ValidateCallResponse& decided,
                              const std::vector<const Violation*>& own) {
  ValidateCallResponse out;
  out.decision = decided.decision;
  out.repair_prompt = decided.repair_prompt;
  out.attempt = decided.attempt;
  out.attempts_left = decided.attempts_left;
  out.audit_id = decided.audit_id;
  out.approval_id = decided.approval_id;
  out.message = decided.message;
  out.stop_reason = decided.stop_reason;
  bool reason_is_own = decided.decision != Decision::kReject;
  for (const Violation* v : own) {
    out.violations.push_back(*v);
    reason_is_own = reason_is_own || v->code == decided.stop_reason;
  }
  if (!reason_is_own) out.stop_reason.clear();
  return out;
}

}  // namespace

McpTurn BuildTurn(const McpBody& body, const JsonLimits& limits) {
  McpTurn turn;
  for (size_t i = 0; i < body.messages.size(); ++i) {
    if (body.messages[i].kind == McpKind::kToolCall) turn.calls.push_back(i);
  }
  if (turn.calls.size() == 1) {
    turn.output = body.messages[turn.calls[0]].params_json;
  }
  if (turn.calls.size() < 2) return turn;
  Json content = Json::array();
  for (size_t k = 0; k < turn.calls.size(); ++k) {
    const std::string& params = body.messages[turn.calls[k]].params_json;
    RawCalls read = ReadNativeCalls(params, limits);
    if (!ReadClean(read)) {
      turn.output = params;
      turn.unreadable = k;
      return turn;
    }
    RawCall& call = read.calls[0];
    content.push_back({{"type", "tool_use"},
                       {"name", std::move(call.name)},
                       {"input", std::move(call.arguments)}});
  }
  turn.output = CanonicalJson({{"content", std::move(content)}});
  return turn;
}

bool DecidedAsSent(const McpBody& body, const McpTurn& turn,
                   const ValidateCallResponse& decided) {
  if (turn.unreadable.has_value() || turn.calls.empty() ||
      decided.calls.size() != turn.calls.size()) {
    return false;
  }
  for (size_t k = 0; k < turn.calls.size(); ++k) {
    const McpMessage& m = body.messages[turn.calls[k]];
    const CallReport& c = decided.calls[k];
    if (c.name != m.tool || m.arguments_json.empty() ||
        c.arguments_json != m.arguments_json) {
      return false;
    }
  }
  return true;
}

std::optional<RpcError> RefusedMessage(const McpMessage& message) {
  if (message.kind != McpKind::kDeny) return std::nullopt;
  std::string why;
  if (message.deny_reason == "duplicate_id") {
    why = ": another message of this batch has the same id, so their "
          "answers could not be told apart";
  } else if (message.deny_reason == "invalid_params") {
    why = ": tools/call params must be an object naming the tool "
          "(\"name\", \"arguments\")";
  }
  return DeniedError(message.deny_reason,
                     absl::StrCat("this JSON-RPC message is not let through (",
                                  message.deny_reason, ")", why));
}

std::vector<std::optional<RpcError>> TurnErrors(
    const McpBody& body, const McpTurn& turn,
    const ValidateCallResponse& decided,
    const std::vector<bool>& needs_approval) {
  std::vector<std::optional<RpcError>> errors(body.messages.size());
  if (turn.unreadable.has_value()) {
    errors[turn.calls[*turn.unreadable]] = ErrorForDecision(decided);
    return errors;
  }
  bool marked = false;
  bool per_call = false;
  for (bool b : needs_approval) marked = marked || b;
  for (const Violation& v : decided.violations) {
    per_call = per_call || v.call_index >= 0;
  }
  for (size_t k = 0; k < turn.calls.size(); ++k) {
    std::optional<RpcError>& error = errors[turn.calls[k]];
    if (decided.decision == Decision::kNeedsApproval) {
      if (!marked || (k < needs_approval.size() && needs_approval[k])) {
        error = ErrorForDecision(decided);
      }
      continue;
    }
    std::vector<const Violation*> own;
    for (const Violation& v : decided.violations) {
      if (v.call_index < 0 || v.call_index == static_cast<int>(k)) {
        own.push_back(&v);
      }
    }
    if (!own.empty() || !per_call) {
      error = ErrorForDecision(Narrowed(decided, own));
    }
  }
  return errors;
}

std::vector<std::optional<RpcError>> CallErrors(const McpBody& body,
                                                const RpcError& error) {
  std::vector<std::optional<RpcError>> errors(body.messages.size());
  for (size_t i = 0; i < body.messages.size(); ++i) {
    if (body.messages[i].kind == McpKind::kToolCall) errors[i] = error;
  }
  return errors;
}

Json DeniedAnswer(const McpBody& body,
                  const std::vector<std::optional<RpcError>>& errors) {
  return ErrorAnswer(body, errors,
                     DeniedError("batch_denied",
                                 "another message of this batch was denied; "
                                 "send the allowed ones alone"));
}

Json ErrorAnswer(const McpBody& body,
                 const std::vector<std::optional<RpcError>>& errors,
                 const RpcError& otherwise) {
  Json answers = Json::array();
  for (size_t i = 0; i < body.messages.size(); ++i) {
    const RpcError& e = i < errors.size() && errors[i].has_value()
                            ? *errors[i]
                            : otherwise;
    answers.push_back({{"jsonrpc", "2.0"},
                       {"id", body.messages[i].id},
                       {"error", ErrorObject(e)}});
  }
  if (!body.batch && answers.size() == 1) return std::move(answers[0]);
  return answers;
}

}  // namespace mesh
}  // namespace toolgate
