#include "core/engine/validate_tool_output.h"

#include <string>
#include <utility>

#include "core/pipeline/audit_payload.h"

namespace toolgate {

namespace {

output::OutputSpec SpecFor(const CompiledTool& tool) {
  output::OutputSpec spec;
  spec.output_schema = tool.output.get();
  switch (tool.spec.output_format) {
    case OutputFormat::kMcp:
      spec.format = output::ResultFormat::kMcp;
      break;
    case OutputFormat::kJson:
      spec.format = output::ResultFormat::kPlain;
      break;
    case OutputFormat::kAuto:
      spec.format = output::ResultFormat::kDetect;
      break;
  }
  return spec;
}

AuditRecord OutputAudit(const ValidateOutputRequest& request,
                        const ValidateOutputResponse& response) {
  AuditRecord record;
  record.audit_id = response.audit_id;
  record.rpc = "ValidateToolOutput";
  record.source = request.source;
  record.mcp_request_id = request.mcp_request_id;
  record.decision = response.result.verdict == output::OutputVerdict::kValid
                        ? "VALID"
                        : "INVALID";
  record.stop_reason = response.result.stop_reason;
  record.tools.push_back(request.tool_name);
  for (const auto& v : response.result.violations) {
    record.codes.push_back(v.code);
  }
  return record;
}

output::OutputResult CheckOutput(const EngineOptions& options,
                                 const Snapshot& snapshot,
                                 const ValidateOutputRequest& request) {
  const CompiledTool* tool = snapshot.FindTool(request.tool_name);
  const output::OutputSpec spec =
      tool == nullptr ? output::OutputSpec() : SpecFor(*tool);
  output::OutputRequest checked;
  checked.tool_name = request.tool_name;
  checked.content_type = request.content_type;
  checked.http_status = request.http_status;
  checked.body = request.body;
  checked.mode = request.mode;
  output::OutputLimits limits;
  limits.max_body_bytes = options.limits.max_bytes;
  limits.max_depth = options.limits.max_depth;
  // A tool absent from the snapshot is passed as no spec: unknown_tool.
  return output::ValidateToolOutput(checked, tool == nullptr ? nullptr : &spec,
                                    limits);
}

}  // namespace

absl::StatusOr<ValidateOutputResponse> HandleValidateToolOutput(
    const Services& services, const ValidateOutputRequest& request) {
  const AuditClock::time_point started = AuditClock::now();
  // In a run, RecordOutput is the call's one state change and checks the
  // token; every path to an answer goes through it.
  absl::StatusOr<Target> target =
      services.Resolve(request.snapshot_id, request.run_id, request.run_token,
                       /*at_commit=*/true);
  if (!target.ok()) return target.status();
  ValidateOutputResponse response;
  absl::StatusOr<std::string> audit_id = services.audit.NewId();
  if (!audit_id.ok()) return audit_id.status();
  response.audit_id = *std::move(audit_id);
  response.result = CheckOutput(services.options, *target->snapshot, request);
  // A caller that has gone gets no verdict, and an invalid output of its
  // does not count toward the run's kill switch (the costly check only
  // where it would count).
  const bool counts =
      target->run != nullptr &&
      response.result.verdict == output::OutputVerdict::kInvalid;
  if (absl::Status gone =
          counts ? request.cancel.CheckNow() : request.cancel.Check();
      !gone.ok()) {
    return gone;
  }
  if (target->run != nullptr) {
    absl::StatusOr<bool> read_only = services.run_state.RecordOutput(
        *target->run, request.run_token, response.result.verdict);
    if (!read_only.ok()) return read_only.status();
    response.read_only = *read_only;
  }
  AuditRecord record = OutputAudit(request, response);
  if (services.audit.payloads()) record.payload = OutputPayload(request);
  if (absl::Status audited =
          services.audit.Write(std::move(record), *target, started);
      !audited.ok()) {
    return audited;
  }
  return response;
}

}  // namespace toolgate
