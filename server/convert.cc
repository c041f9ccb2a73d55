#include "server/convert.h"

#include <chrono>
#include <string>

#include "core/json/utf8.h"

namespace toolgate {
namespace server {
namespace {

// Proto string fields must be valid UTF-8 or the whole response fails to
// serialize; text that quotes model output is made safe here, once.
std::string Safe(const std::string& text) { return ToValidUtf8(text); }

}  // namespace

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // absl and gRPC share the canonical code numbering.
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

CancelToken ToCancelToken(grpc::ServerContextBase* context) {
  if (context == nullptr) return CancelToken();
  const auto deadline = context->deadline();
  return CancelToken([context] { return context->IsCancelled(); },
                     deadline == std::chrono::system_clock::time_point::max()
                         ? absl::InfiniteFuture()
                         : absl::FromChrono(deadline));
}

ManifestFormat FromProto(v1::ManifestFormat format) {
  switch (format) {
    case v1::MANIFEST_FORMAT_TOOLGATE:
      return ManifestFormat::kToolgate;
    case v1::MANIFEST_FORMAT_OPENAI:
      return ManifestFormat::kOpenAI;
    case v1::MANIFEST_FORMAT_ANTHROPIC:
      return ManifestFormat::kAnthropic;
    case v1::MANIFEST_FORMAT_MCP:
      return ManifestFormat::kMcp;
    default:
      return ManifestFormat::kAuto;
  }
}

v1::ManifestFormat ToProto(ManifestFormat format) {
  switch (format) {
    case ManifestFormat::kToolgate:
      return v1::MANIFEST_FORMAT_TOOLGATE;
    case ManifestFormat::kOpenAI:
      return v1::MANIFEST_FORMAT_OPENAI;
    case ManifestFormat::kAnthropic:
      return v1::MANIFEST_FORMAT_ANTHROPIC;
    case ManifestFormat::kMcp:
      return v1::MANIFEST_FORMAT_MCP;
    case ManifestFormat::kAuto:
      return v1::MANIFEST_FORMAT_AUTO;
  }
  return v1::MANIFEST_FORMAT_UNSPECIFIED;
}

v1::Decision ToProto(Decision decision) {
  switch (decision) {
    case Decision::kAllow:
      return v1::DECISION_ALLOW;
    case Decision::kReject:
      return v1::DECISION_REJECT;
    case Decision::kNeedsApproval:
      return v1::DECISION_NEEDS_APPROVAL;
    case Decision::kStop:
      return v1::DECISION_STOP;
  }
  return v1::DECISION_REJECT;
}

stream::Format FromProto(v1::StreamFormat format) {
  switch (format) {
    case v1::STREAM_FORMAT_OPENAI_CHAT:
      return stream::Format::kOpenAIChat;
    case v1::STREAM_FORMAT_OPENAI_RESPONSES:
      return stream::Format::kOpenAIResponses;
    case v1::STREAM_FORMAT_ANTHROPIC_MESSAGES:
      return stream::Format::kAnthropicMessages;
    case v1::STREAM_FORMAT_GEMINI:
      return stream::Format::kGemini;
    default:
      return stream::Format::kUnspecified;
  }
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
    case v1::ValidateToolCallRequest::kStreamEvents:
      out.kind = OutputKind::kStream;
      out.stream_format = FromProto(request.stream_events().format());
      out.stream_events.assign(request.stream_events().events().begin(),
                               request.stream_events().events().end());
      break;
    default:
      out.kind = OutputKind::kUnset;
  }
  // Only an explicit SYNTAX_REPAIR repairs; UNSPECIFIED is STRICT.
  out.syntax_repair = request.repair() == v1::REPAIR_POLICY_SYNTAX_REPAIR;
  out.approval_id = request.approval_id();
  out.forward_as_sent = request.forward_as_sent();
  if (!request.mcp_request_id().empty()) {
    out.source = std::string(kMcpStdioSource);
    out.mcp_request_id = request.mcp_request_id();
  }
  return out;
}

void ToProto(const Violation& in, v1::Violation* out) {
  out->set_code(in.code);
  out->set_tool(in.tool);
  out->set_pointer(in.pointer);
  out->set_keyword(in.keyword);
  out->set_expected(Safe(in.expected));
  out->set_received(Safe(in.received));
  out->set_message(Safe(in.message));
  out->set_schema_pointer(in.schema_pointer);
  out->set_call_index(in.call_index);
}

// Strings are moved, not copied, and empty ones left unset: proto3 keeps
// an empty string off the wire, and setting one still allocates it.
void ToProto(ValidateCallResponse&& in, v1::ValidateToolCallResponse* out) {
  out->set_decision(ToProto(in.decision));
  for (CallReport& c : in.calls) {
    v1::ToolCall* call = out->add_calls();
    if (!c.id.empty()) call->set_id(std::move(c.id));
    if (!c.name.empty()) call->set_name(std::move(c.name));
    if (!c.arguments_json.empty()) {
      call->set_arguments_json(std::move(c.arguments_json));
    }
    for (std::string& r : c.repairs) call->add_repairs(std::move(r));
    for (std::string& p : c.coercions) call->add_coercions(std::move(p));
    for (std::string& p : c.sanitizations) {
      call->add_sanitizations(std::move(p));
    }
    if (!c.source.empty()) call->set_source(std::move(c.source));
    call->set_candidates_seen(c.candidates_seen);
  }
  for (const Violation& v : in.violations) ToProto(v, out->add_violations());
  if (!in.repair_prompt.empty()) {
    out->set_repair_prompt(std::move(in.repair_prompt));
  }
  out->set_attempt(in.attempt);
  out->set_attempts_left(in.attempts_left);
  if (!in.stop_reason.empty()) out->set_stop_reason(std::move(in.stop_reason));
  if (!in.audit_id.empty()) out->set_audit_id(std::move(in.audit_id));
  if (!in.snapshot_id.empty()) out->set_snapshot_id(std::move(in.snapshot_id));
  if (!in.approval_id.empty()) out->set_approval_id(std::move(in.approval_id));
  if (!in.message.empty()) out->set_message(std::move(in.message));
}

VerdictRequest FromProto(const v1::ExtractVerdictRequest& request) {
  VerdictRequest out;
  out.snapshot_id = request.snapshot_id();
  out.run_id = request.run_id();
  out.run_token = request.run_token();
  out.envelope = request.envelope();
  out.result_schema = request.result_schema();
  out.syntax_repair = request.repair() == v1::REPAIR_POLICY_SYNTAX_REPAIR;
  return out;
}

v1::Outcome ToProto(verdict::Outcome outcome) {
  switch (outcome) {
    case verdict::Outcome::kPass:
      return v1::OUTCOME_PASS;
    case verdict::Outcome::kFail:
      return v1::OUTCOME_FAIL;
    case verdict::Outcome::kRefused:
      return v1::OUTCOME_REFUSED;
    case verdict::Outcome::kContractStop:
      return v1::OUTCOME_CONTRACT_STOP;
  }
  return v1::OUTCOME_CONTRACT_STOP;
}

void ToProto(VerdictResponse&& in, v1::ExtractVerdictResponse* out) {
  verdict::VerdictResult& r = in.result;
  out->set_outcome(ToProto(r.outcome));
  if (!r.result_json.empty()) out->set_result_json(std::move(r.result_json));
  if (!r.stop_reason.empty()) out->set_stop_reason(r.stop_reason);
  out->set_blocks_found(r.blocks_found);
  for (const schema::SchemaViolation& v : r.violations) {
    v1::Violation* p = out->add_violations();
    p->set_code(r.stop_reason.empty() ? "result_block_invalid" : r.stop_reason);
    p->set_pointer(v.instance_pointer);
    p->set_schema_pointer(v.schema_pointer);
    p->set_keyword(v.keyword);
    p->set_expected(Safe(v.expected));
    p->set_received(Safe(v.received));
    p->set_message(Safe(v.message));
    p->set_call_index(-1);
  }
  // A stop without schema violations still says why, in one violation.
  if (r.violations.empty() && !r.stop_reason.empty()) {
    v1::Violation* p = out->add_violations();
    p->set_code(r.stop_reason);
    p->set_message(Safe(r.message));
    p->set_call_index(-1);
  }
  for (std::string& repair : r.repairs) out->add_repairs(std::move(repair));
  if (!in.audit_id.empty()) out->set_audit_id(std::move(in.audit_id));
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
    case v1::OUTPUT_MODE_DEGRADE:
      out.mode = output::OutputMode::kDegrade;
      break;
    case v1::OUTPUT_MODE_FAIL_CLOSED:
      out.mode = output::OutputMode::kFailClosed;
      break;
    default:
      out.mode = output::OutputMode::kUnspecified;  // Fail closed.
  }
  if (!request.mcp_request_id().empty()) {
    out.source = std::string(kMcpStdioSource);
    out.mcp_request_id = request.mcp_request_id();
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
    p->set_expected(Safe(v.expected));
    p->set_received(Safe(v.received));
    p->set_message(Safe(v.message));
    p->set_call_index(-1);
  }
  for (const output::Finding& f : r.findings) {
    v1::Finding* p = out->add_findings();
    p->set_code(f.code);
    p->set_pointer(f.pointer);
    p->set_excerpt(Safe(f.excerpt));
  }
  out->set_read_only(in.read_only);
  out->set_audit_id(in.audit_id);
}

namespace {

void ToProto(absl::Time time, google::protobuf::Timestamp* out) {
  if (time == absl::InfinitePast() || time == absl::InfiniteFuture()) return;
  const int64_t nanos = absl::ToUnixNanos(time);
  out->set_seconds(nanos / 1000000000);
  out->set_nanos(static_cast<int32_t>(nanos % 1000000000));
}

}  // namespace

ApprovalState FromProto(v1::ApprovalState state) {
  switch (state) {
    case v1::APPROVAL_STATE_PENDING:
      return ApprovalState::kPending;
    case v1::APPROVAL_STATE_APPROVED:
      return ApprovalState::kApproved;
    case v1::APPROVAL_STATE_DENIED:
      return ApprovalState::kDenied;
    case v1::APPROVAL_STATE_EXPIRED:
      return ApprovalState::kExpired;
    case v1::APPROVAL_STATE_USED:
      return ApprovalState::kUsed;
    default:
      return ApprovalState::kUnspecified;
  }
}

v1::ApprovalState ToProto(ApprovalState state) {
  switch (state) {
    case ApprovalState::kPending:
      return v1::APPROVAL_STATE_PENDING;
    case ApprovalState::kApproved:
      return v1::APPROVAL_STATE_APPROVED;
    case ApprovalState::kDenied:
      return v1::APPROVAL_STATE_DENIED;
    case ApprovalState::kExpired:
      return v1::APPROVAL_STATE_EXPIRED;
    case ApprovalState::kUsed:
      return v1::APPROVAL_STATE_USED;
    default:
      return v1::APPROVAL_STATE_UNSPECIFIED;
  }
}

void ToProto(const Approval& in, v1::Approval* out) {
  out->set_approval_id(in.approval_id);
  out->set_run_id(in.run_id);
  out->set_tool(in.tool);
  out->set_arguments_json(in.arguments_json);
  out->set_state(ToProto(in.state));
  ToProto(in.created_at, out->mutable_created_at());
  ToProto(in.expires_at, out->mutable_expires_at());
  for (const auto& [key, value] : in.run_context) {
    (*out->mutable_run_context())[key] = value;
  }
  out->set_model(in.model);
  out->set_approver(in.approver);
  out->set_reason(in.reason);
  if (in.decided_at != absl::InfinitePast()) {
    ToProto(in.decided_at, out->mutable_decided_at());
  }
}

}  // namespace server
}  // namespace toolgate
