#include "client/mcp_proxy/grpc_decider.h"

#include <utility>

namespace toolgate {
namespace mcp_proxy {
namespace {

absl::StatusOr<Decision> FromProto(v1::Decision decision) {
  switch (decision) {
    case v1::DECISION_ALLOW:
      return Decision::kAllow;
    case v1::DECISION_REJECT:
      return Decision::kReject;
    case v1::DECISION_NEEDS_APPROVAL:
      return Decision::kNeedsApproval;
    case v1::DECISION_STOP:
      return Decision::kStop;
    default:
      return absl::UnavailableError("the sidecar's answer holds no decision");
  }
}

Violation FromProto(const v1::Violation& v) {
  Violation c;
  c.code = v.code();
  c.tool = v.tool();
  c.pointer = v.pointer();
  c.keyword = v.keyword();
  c.expected = v.expected();
  c.received = v.received();
  c.message = v.message();
  return c;
}

CallReport FromProto(const v1::ToolCall& call) {
  CallReport c;
  c.id = call.id();
  c.name = call.name();
  c.arguments_json = call.arguments_json();
  c.repairs.assign(call.repairs().begin(), call.repairs().end());
  c.coercions.assign(call.coercions().begin(), call.coercions().end());
  c.sanitizations.assign(call.sanitizations().begin(),
                         call.sanitizations().end());
  c.source = call.source();
  c.candidates_seen = call.candidates_seen();
  return c;
}

v1::OutputMode ToProto(output::OutputMode mode) {
  switch (mode) {
    case output::OutputMode::kFailClosed:
      return v1::OUTPUT_MODE_FAIL_CLOSED;
    case output::OutputMode::kDegrade:
      return v1::OUTPUT_MODE_DEGRADE;
    default:
      return v1::OUTPUT_MODE_UNSPECIFIED;
  }
}

}  // namespace

absl::StatusOr<ValidateCallResponse> GrpcDecider::ValidateToolCall(
    const ValidateCallRequest& request) {
  if (request.kind != OutputKind::kNative) {
    return absl::InternalError("the MCP path decides native MCP params only");
  }
  v1::ValidateToolCallRequest call;
  call.set_snapshot_id(request.snapshot_id);
  call.set_run_id(request.run_id);
  call.set_run_token(request.run_token);
  call.set_native_json(std::string(request.output));
  call.set_repair(request.syntax_repair ? v1::REPAIR_POLICY_SYNTAX_REPAIR
                                        : v1::REPAIR_POLICY_STRICT);
  call.set_approval_id(request.approval_id);
  call.set_forward_as_sent(request.forward_as_sent);
  call.set_mcp_request_id(request.mcp_request_id);
  absl::StatusOr<v1::ValidateToolCallResponse> r =
      client_->ValidateToolCall(call);
  if (!r.ok()) return r.status();
  absl::StatusOr<Decision> decision = FromProto(r->decision());
  if (!decision.ok()) return decision.status();
  ValidateCallResponse out;
  out.decision = *decision;
  for (const v1::ToolCall& c : r->calls()) out.calls.push_back(FromProto(c));
  for (const v1::Violation& v : r->violations()) {
    out.violations.push_back(FromProto(v));
  }
  out.repair_prompt = r->repair_prompt();
  out.attempt = r->attempt();
  out.attempts_left = r->attempts_left();
  out.stop_reason = r->stop_reason();
  out.audit_id = r->audit_id();
  out.snapshot_id = r->snapshot_id();
  out.approval_id = r->approval_id();
  out.message = r->message();
  return out;
}

absl::StatusOr<ValidateOutputResponse> GrpcDecider::ValidateToolOutput(
    const ValidateOutputRequest& request) {
  v1::ValidateToolOutputRequest check;
  check.set_snapshot_id(request.snapshot_id);
  check.set_run_id(request.run_id);
  check.set_run_token(request.run_token);
  check.set_tool_name(request.tool_name);
  check.set_content_type(request.content_type);
  check.set_http_status(request.http_status);
  check.set_body(std::string(request.body));
  check.set_mode(ToProto(request.mode));
  check.set_mcp_request_id(request.mcp_request_id);
  absl::StatusOr<v1::ValidateToolOutputResponse> r =
      client_->ValidateToolOutput(check);
  if (!r.ok()) return r.status();
  ValidateOutputResponse out;
  switch (r->verdict()) {
    case v1::OUTPUT_VERDICT_VALID:
      out.result.verdict = output::OutputVerdict::kValid;
      break;
    case v1::OUTPUT_VERDICT_INVALID:
      out.result.verdict = output::OutputVerdict::kInvalid;
      break;
    default:
      return absl::UnavailableError("the sidecar gave no verdict");
  }
  out.result.stop_reason = r->stop_reason();
  for (const v1::Violation& v : r->violations()) {
    output::OutputViolation c;
    c.code = v.code();
    c.pointer = v.pointer();
    c.keyword = v.keyword();
    c.expected = v.expected();
    c.received = v.received();
    c.message = v.message();
    out.result.violations.push_back(std::move(c));
  }
  // A VALID answer listing violations is no VALID answer.
  if (out.result.verdict == output::OutputVerdict::kValid &&
      !out.result.violations.empty()) {
    return absl::UnavailableError("the sidecar's VALID lists violations");
  }
  out.read_only = r->read_only();
  out.audit_id = r->audit_id();
  return out;
}

absl::StatusOr<std::vector<bool>> GrpcDecider::RequiresApproval(
    absl::string_view, const std::vector<std::string>&) {
  return absl::UnimplementedError(
      "the gateway decides one call at a time: each is told");
}

}  // namespace mcp_proxy
}  // namespace toolgate
