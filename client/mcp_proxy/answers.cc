#include "client/mcp_proxy/answers.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/pipeline/api.h"

namespace toolgate {
namespace mcp_proxy {
namespace {

Decision FromProto(v1::Decision decision) {
  switch (decision) {
    case v1::DECISION_ALLOW:
      return Decision::kAllow;
    case v1::DECISION_NEEDS_APPROVAL:
      return Decision::kNeedsApproval;
    case v1::DECISION_STOP:
      return Decision::kStop;
    default:
      return Decision::kReject;
  }
}

ValidateCallResponse FromProto(const v1::ValidateToolCallResponse& r) {
  ValidateCallResponse out;
  out.decision = FromProto(r.decision());
  for (const v1::Violation& v : r.violations()) {
    Violation c;
    c.code = v.code();
    c.tool = v.tool();
    c.pointer = v.pointer();
    c.keyword = v.keyword();
    c.expected = v.expected();
    c.received = v.received();
    c.message = v.message();
    out.violations.push_back(std::move(c));
  }
  out.repair_prompt = r.repair_prompt();
  out.attempt = r.attempt();
  out.attempts_left = r.attempts_left();
  out.stop_reason = r.stop_reason();
  out.audit_id = r.audit_id();
  out.approval_id = r.approval_id();
  out.message = r.message();
  return out;
}

ValidateOutputResponse FromProto(const v1::ValidateToolOutputResponse& r) {
  ValidateOutputResponse out;
  out.result.verdict = output::OutputVerdict::kInvalid;
  out.result.stop_reason = r.stop_reason();
  for (const v1::Violation& v : r.violations()) {
    output::OutputViolation c;
    c.code = v.code();
    c.pointer = v.pointer();
    c.keyword = v.keyword();
    c.expected = v.expected();
    c.message = v.message();
    out.result.violations.push_back(std::move(c));
  }
  out.read_only = r.read_only();
  out.audit_id = r.audit_id();
  return out;
}

}  // namespace

mesh::RpcError DecisionError(const v1::ValidateToolCallResponse& response) {
  if (response.decision() == v1::DECISION_UNSPECIFIED ||
      !v1::Decision_IsValid(response.decision())) {
    return mesh::UnavailableError("the sidecar's answer holds no decision");
  }
  return mesh::ErrorForDecision(FromProto(response));
}

mesh::RpcError StatusError(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kUnauthenticated:
    case absl::StatusCode::kFailedPrecondition:
      return mesh::DeniedError(
          "run_rejected", absl::StrCat("the run was refused: ",
                                       status.message()));
    default:
      return mesh::UnavailableError(status.ToString());
  }
}

mesh::RpcError ProtocolError(int code, absl::string_view reason,
                             absl::string_view detail) {
  mesh::RpcError e;
  e.code = code;
  e.message = code == -32700   ? "Parse error"
              : code == -32600 ? "Invalid Request"
                               : "Invalid params";
  if (!detail.empty()) absl::StrAppend(&e.message, ": ", detail);
  e.data = {{"decision", "DENY"}, {"reason", std::string(reason)}};
  return e;
}

mesh::RpcError ToolRefusedError(absl::string_view tool,
                                absl::string_view reason,
                                absl::string_view change,
                                absl::string_view detail) {
  mesh::RpcError e = mesh::DeniedError(
      reason, absl::StrCat("tool \"", tool, "\" refused (", reason, "): ",
                           detail));
  e.data["tool"] = std::string(tool);
  if (!change.empty()) e.data["change"] = std::string(change);
  return e;
}

std::string ErrorLine(const Json& id, const mesh::RpcError& error) {
  return mesh::JsonRpcErrorBody(id, error);
}

std::string WithheldResultLine(
    const Json& id, absl::string_view tool,
    const v1::ValidateToolOutputResponse& response) {
  const mesh::RpcError e = mesh::ErrorForOutput(FromProto(response));
  std::string text = absl::StrCat("toolgate withheld the answer of tool \"",
                                  tool, "\": it failed validation (");
  bool first = true;
  for (const v1::Violation& v : response.violations()) {
    absl::StrAppend(&text, first ? "" : "; ", v.code(),
                    v.pointer().empty() ? "" : " at ", v.pointer());
    first = false;
  }
  absl::StrAppend(&text, first ? "no violation listed" : "", ").");
  if (response.read_only()) {
    absl::StrAppend(&text, " The run is now read-only: write and "
                           "destructive tools are refused.");
  }
  Json result = {
      {"content", Json::array({{{"type", "text"}, {"text", text}}})},
      {"isError", true},
      {"_meta", {{"dev.toolgate/output", e.data}}}};
  return CanonicalJson({{"jsonrpc", "2.0"}, {"id", id}, {"result", result}});
}

}  // namespace mcp_proxy
}  // namespace toolgate
