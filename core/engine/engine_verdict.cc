// Engine::ExtractVerdict: an agent's verdict is the last fenced JSON block
// of its envelope, validated; anything else is a contract stop.
#include <utility>

#include "core/engine/engine.h"

namespace toolgate {

absl::StatusOr<std::shared_ptr<const schema::Schema>> Engine::ResultSchema(
    absl::string_view json) {
  if (json.empty()) return verdict::DefaultResultSchema();
  if (auto cached = result_schemas_.Find(json)) return cached;
  auto compiled = verdict::CompileResultSchema(json);
  if (!compiled.ok()) return compiled.status();
  result_schemas_.Insert(json, *compiled);
  return compiled;
}

absl::StatusOr<VerdictResponse> Engine::DoExtractVerdict(
    const VerdictRequest& request) {
  Target target;
  if (!request.run_id.empty() || !request.snapshot_id.empty() ||
      !request.run_token.empty()) {
    auto resolved =
        ResolveTarget(request.snapshot_id, request.run_id, request.run_token);
    if (!resolved.ok()) return resolved.status();
    target = *std::move(resolved);
  }
  auto schema = ResultSchema(request.result_schema);
  if (!schema.ok()) return schema.status();
  if (absl::Status gone = request.cancel.Check(); !gone.ok()) return gone;
  VerdictResponse response;
  absl::StatusOr<std::string> audit_id = NewAuditId();
  if (!audit_id.ok()) return audit_id.status();
  response.audit_id = *std::move(audit_id);
  verdict::VerdictLimits limits;
  limits.max_envelope_bytes = options_.limits.max_bytes;
  limits.json = options_.limits;
  response.result = verdict::ExtractVerdict(
      request.envelope, **schema,
      request.syntax_repair ? repair::RepairPolicy::kSyntaxRepair
                            : repair::RepairPolicy::kStrict,
      limits);
  if (absl::Status gone = request.cancel.Check(); !gone.ok()) return gone;
  AuditRecord record;
  record.audit_id = response.audit_id;
  record.rpc = "ExtractVerdict";
  record.decision = std::string(verdict::OutcomeName(response.result.outcome));
  record.stop_reason = response.result.stop_reason;
  if (!response.result.stop_reason.empty()) {
    record.codes.push_back(response.result.stop_reason);
  }
  Audit(std::move(record), target);
  return response;
}

}  // namespace toolgate
