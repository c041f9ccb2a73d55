#include "core/pipeline/audit_call.h"

#include <string>
#include <utility>

#include "core/pipeline/audit_payload.h"

namespace toolgate {
namespace pipeline {

absl::Status AuditCall(CallContext& call) {
  const AuditTrail& audit = call.services.audit;
  if (!audit.enabled()) return call.NotApplicable();
  const ValidateCallResponse& response = call.response;
  AuditRecord record;
  record.audit_id = response.audit_id;
  record.rpc = "ValidateToolCall";
  record.source = call.request.source;
  record.mcp_request_id = call.request.mcp_request_id;
  record.decision = std::string(DecisionName(response.decision));
  record.stop_reason = response.stop_reason;
  record.approval_id = response.approval_id;
  if (record.source.empty() && call.request.kind == OutputKind::kStream) {
    record.source = stream::SourceName(call.request.stream_format);
  }
  for (const CallReport& c : response.calls) {
    record.tools.push_back(c.name);
    record.repairs.insert(record.repairs.end(), c.repairs.begin(),
                          c.repairs.end());
  }
  for (const Violation& v : response.violations) record.codes.push_back(v.code);
  if (audit.payloads()) {
    record.payload = CallPayload(call.request);
    // The run's format when the request left it unset: replay is
    // stateless and must read the text the same way.
    if (call.text_format != extract::TextFormat::kUnspecified) {
      record.payload["text_format"] =
          std::string(extract::TextFormatProtoName(call.text_format));
    }
  }
  return audit.Write(std::move(record), call.target, call.started);
}

}  // namespace pipeline
}  // namespace toolgate
