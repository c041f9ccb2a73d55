#include "server/convert.h"

#include <string>

namespace toolgate {
namespace server {

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // absl and gRPC share the canonical code numbering.
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

ManifestFormat FromProto(v1::ManifestFormat format) {
  switch (format) {
    case v1::MANIFEST_FORMAT_TOOLGATE: return ManifestFormat::kToolgate;
    case v1::MANIFEST_FORMAT_OPENAI: return ManifestFormat::kOpenAI;
    case v1::MANIFEST_FORMAT_ANTHROPIC: return ManifestFormat::kAnthropic;
    case v1::MANIFEST_FORMAT_MCP: return ManifestFormat::kMcp;
    default: return ManifestFormat::kAuto;
  }
}

v1::ManifestFormat ToProto(ManifestFormat format) {
  switch (format) {
    case ManifestFormat::kToolgate: return v1::MANIFEST_FORMAT_TOOLGATE;
    case ManifestFormat::kOpenAI: return v1::MANIFEST_FORMAT_OPENAI;
    case ManifestFormat::kAnthropic: return v1::MANIFEST_FORMAT_ANTHROPIC;
    case ManifestFormat::kMcp: return v1::MANIFEST_FORMAT_MCP;
    case ManifestFormat::kAuto: return v1::MANIFEST_FORMAT_AUTO;
  }
  return v1::MANIFEST_FORMAT_UNSPECIFIED;
}

v1::Decision ToProto(Decision decision) {
  switch (decision) {
    case Decision::kAllow: return v1::DECISION_ALLOW;
    case Decision::kReject: return v1::DECISION_REJECT;
    case Decision::kNeedsApproval: return v1::DECISION_NEEDS_APPROVAL;
    case Decision::kStop: return v1::DECISION_STOP;
  }
  return v1::DECISION_REJECT;
}

ValidateCallRequest FromProto(const v1::ValidateToolCallRequest& request) {
  ValidateCallRequest out;
  out.snapshot_id = request.snapshot_id();
  out.run_id = request.run_id();
  out.run_token = request.run_token();
  switch (request.model_output_case()) {
    case v1::ValidateToolCallRequest::kText:
      out.kind = OutputKind::kText;
      out.output = request.text();
      break;
    case v1::ValidateToolCallRequest::kNativeJson:
      out.kind = OutputKind::kNative;
      out.output = request.native_json();
      break;
    default:
      out.kind = OutputKind::kUnset;
  }
  // Only an explicit SYNTAX_REPAIR repairs; UNSPECIFIED is STRICT.
  out.syntax_repair = request.repair() == v1::REPAIR_POLICY_SYNTAX_REPAIR;
  return out;
}

void ToProto(const Violation& in, v1::Violation* out) {
  out->set_code(in.code);
  out->set_tool(in.tool);
  out->set_pointer(in.pointer);
  out->set_keyword(in.keyword);
  out->set_expected(in.expected);
  out->set_received(in.received);
  out->set_message(in.message);
  out->set_schema_pointer(in.schema_pointer);
  out->set_call_index(in.call_index);
}

void ToProto(const ValidateCallResponse& in,
             v1::ValidateToolCallResponse* out) {
  out->set_decision(ToProto(in.decision));
  for (const CallReport& c : in.calls) {
    v1::ToolCall* call = out->add_calls();
    call->set_id(c.id);
    call->set_name(c.name);
    call->set_arguments_json(c.arguments_json);
    for (const std::string& r : c.repairs) call->add_repairs(r);
    call->set_source(c.source);
    call->set_candidates_seen(c.candidates_seen);
  }
  for (const Violation& v : in.violations) ToProto(v, out->add_violations());
  out->set_repair_prompt(in.repair_prompt);
  out->set_attempt(in.attempt);
  out->set_attempts_left(in.attempts_left);
  out->set_stop_reason(in.stop_reason);
  out->set_audit_id(in.audit_id);
  out->set_snapshot_id(in.snapshot_id);
}

ValidateOutputRequest FromProto(const v1::ValidateToolOutputRequest& request) {
  ValidateOutputRequest out;
  out.snapshot_id = request.snapshot_id();
  out.run_id = request.run_id();
  out.run_token = request.run_token();
  out.tool_name = request.tool_name();
  out.content_type = request.content_type();
  out.http_status = request.http_status();
  out.body = request.body();
  switch (request.mode()) {
    case v1::OUTPUT_MODE_DEGRADE: out.mode = output::OutputMode::kDegrade; break;
    case v1::OUTPUT_MODE_FAIL_CLOSED:
      out.mode = output::OutputMode::kFailClosed;
      break;
    default: out.mode = output::OutputMode::kUnspecified;  // Fail closed.
  }
  return out;
}

void ToProto(const ValidateOutputResponse& in,
             v1::ValidateToolOutputResponse* out) {
  const output::OutputResult& r = in.result;
  out->set_verdict(r.verdict == output::OutputVerdict::kValid
                       ? v1::OUTPUT_VERDICT_VALID
                       : v1::OUTPUT_VERDICT_INVALID);
  out->set_stop_reason(r.stop_reason);
  out->set_safe_mode(r.safe_mode);
  for (const output::OutputViolation& v : r.violations) {
    v1::Violation* p = out->add_violations();
    p->set_code(v.code);
    p->set_pointer(v.pointer);
    p->set_keyword(v.keyword);
    p->set_schema_pointer(v.schema_pointer);
    p->set_expected(v.expected);
    p->set_received(v.received);
    p->set_message(v.message);
    p->set_call_index(-1);
  }
  for (const output::Finding& f : r.findings) {
    v1::Finding* p = out->add_findings();
    p->set_code(f.code);
    p->set_pointer(f.pointer);
    p->set_excerpt(f.excerpt);
  }
  out->set_read_only(in.read_only);
  out->set_audit_id(in.audit_id);
}

}  // namespace server
}  // namespace toolgate
