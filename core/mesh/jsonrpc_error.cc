#include "core/mesh/jsonrpc_error.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace toolgate {
namespace mesh {
namespace {

Json ViolationJson(const Violation& v) {
  Json out = {{"code", v.code},
              {"tool", v.tool},
              {"pointer", v.pointer},
              {"message", v.message}};
  if (!v.keyword.empty()) out["keyword"] = v.keyword;
  if (!v.expected.empty()) out["expected"] = v.expected;
  if (!v.received.empty()) out["received"] = v.received;
  return out;
}

Json OutputViolationJson(const output::OutputViolation& v) {
  Json out = {{"code", v.code}, {"pointer", v.pointer}, {"message", v.message}};
  if (!v.keyword.empty()) out["keyword"] = v.keyword;
  if (!v.expected.empty()) out["expected"] = v.expected;
  return out;
}

std::string Reason(const ValidateCallResponse& response) {
  if (!response.stop_reason.empty()) return response.stop_reason;
  if (!response.violations.empty()) return response.violations[0].code;
  return "rejected";
}

}  // namespace

RpcError ErrorForDecision(const ValidateCallResponse& response) {
  RpcError e;
  e.data["decision"] = std::string(DecisionName(response.decision));
  e.data["reason"] = Reason(response);
  if (!response.audit_id.empty()) e.data["audit_id"] = response.audit_id;
  switch (response.decision) {
    case Decision::kNeedsApproval:
      e.code = kNeedsApprovalCode;
      e.message = "toolgate: this tool call needs a human's approval";
      e.data["reason"] = "needs_approval";
      e.data["approval_id"] = response.approval_id;
      if (!response.message.empty()) e.data["message"] = response.message;
      return e;
    case Decision::kStop:
      e.code = kStopCode;
      e.message = absl::StrCat("toolgate: stopped (", Reason(response), ")");
      e.data["stop_reason"] = response.stop_reason;
      return e;
    case Decision::kReject:
    case Decision::kAllow:  // Never asked for: treated as a reject.
      break;
  }
  e.code = kInvalidParams;
  e.message = "toolgate: invalid tool call";
  Json violations = Json::array();
  for (const Violation& v : response.violations) {
    violations.push_back(ViolationJson(v));
  }
  e.data["decision"] = "REJECT";
  e.data["violations"] = std::move(violations);
  e.data["repair_prompt"] = response.repair_prompt;
  e.data["attempts_left"] = response.attempts_left;
  return e;
}

RpcError ErrorForOutput(const ValidateOutputResponse& response) {
  RpcError e;
  e.code = kOutputInvalidCode;
  e.message = "toolgate: the tool's answer failed validation and was withheld";
  e.data["decision"] = "INVALID";
  e.data["reason"] = response.result.stop_reason.empty()
                         ? std::string("invalid_tool_output")
                         : response.result.stop_reason;
  Json violations = Json::array();
  for (const auto& v : response.result.violations) {
    violations.push_back(OutputViolationJson(v));
  }
  e.data["violations"] = std::move(violations);
  if (response.read_only) e.data["read_only"] = true;
  if (!response.audit_id.empty()) e.data["audit_id"] = response.audit_id;
  return e;
}

RpcError DeniedError(absl::string_view reason, absl::string_view message) {
  RpcError e;
  e.code = kDeniedCode;
  e.message = absl::StrCat("toolgate: ", message);
  e.data = {{"decision", "DENY"}, {"reason", std::string(reason)}};
  return e;
}

RpcError UnavailableError(absl::string_view message) {
  RpcError e;
  e.code = kUnavailableCode;
  e.message = absl::StrCat("toolgate could not decide: ", message);
  e.data = {{"decision", "UNAVAILABLE"}, {"reason", "unavailable"}};
  return e;
}

RpcError ErrorForEngineStatus(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kUnauthenticated:
    case absl::StatusCode::kFailedPrecondition:
      return DeniedError("run_rejected", status.message());
    default:
      return mesh::UnavailableError(status.message());
  }
}

Json ErrorObject(const RpcError& error) {
  return {
      {"code", error.code}, {"message", error.message}, {"data", error.data}};
}

std::string JsonRpcErrorBody(const Json& id, const RpcError& error) {
  return CanonicalJson(
      {{"jsonrpc", "2.0"}, {"id", id}, {"error", ErrorObject(error)}});
}

}  // namespace mesh
}  // namespace toolgate
