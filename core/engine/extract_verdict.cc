#include "core/engine/extract_verdict.h"

#include <memory>
#include <string>
#include <utility>

#include "core/pipeline/audit_payload.h"

namespace toolgate {
namespace {

// Inline result schemas compile once and are reused while they fit the
// cache's byte budget.
absl::StatusOr<std::shared_ptr<const schema::Schema>> ResultSchema(
    SchemaPool& cache, absl::string_view json) {
  if (json.empty()) return verdict::DefaultResultSchema();
  if (auto cached = cache.Find(json)) return cached;
  auto compiled = verdict::CompileResultSchema(json);
  if (!compiled.ok()) return compiled.status();
  cache.Insert(json, *compiled);
  return compiled;
}

// Only a request that names a snapshot or a run is tied to one.
absl::StatusOr<Target> OptionalTarget(const Services& services,
                                      const VerdictRequest& request) {
  if (request.run_id.empty() && request.snapshot_id.empty() &&
      request.run_token.empty()) {
    return Target();
  }
  return services.Resolve(request.snapshot_id, request.run_id,
                          request.run_token);
}

AuditRecord VerdictAudit(const VerdictResponse& response) {
  AuditRecord record;
  record.audit_id = response.audit_id;
  record.rpc = "ExtractVerdict";
  record.decision = std::string(verdict::OutcomeName(response.result.outcome));
  record.stop_reason = response.result.stop_reason;
  if (!response.result.stop_reason.empty()) {
    record.codes.push_back(response.result.stop_reason);
  }
  record.repairs = response.result.repairs;
  return record;
}

}  // namespace

absl::StatusOr<VerdictResponse> HandleExtractVerdict(
    const Services& services, SchemaPool& result_schemas,
    const VerdictRequest& request) {
  const AuditClock::time_point started = AuditClock::now();
  absl::StatusOr<Target> target = OptionalTarget(services, request);
  if (!target.ok()) return target.status();
  auto schema = ResultSchema(result_schemas, request.result_schema);
  if (!schema.ok()) return schema.status();
  if (absl::Status gone = request.cancel.Check(); !gone.ok()) return gone;
  VerdictResponse response;
  absl::StatusOr<std::string> audit_id = services.audit.NewId();
  if (!audit_id.ok()) return audit_id.status();
  response.audit_id = *std::move(audit_id);
  verdict::VerdictLimits limits;
  limits.max_envelope_bytes = services.options.limits.max_bytes;
  limits.json = services.options.limits;
  response.result = verdict::ExtractVerdict(
      request.envelope, **schema,
      request.syntax_repair ? repair::RepairPolicy::kSyntaxRepair
                            : repair::RepairPolicy::kStrict,
      limits);
  if (absl::Status gone = request.cancel.Check(); !gone.ok()) return gone;
  AuditRecord record = VerdictAudit(response);
  if (services.audit.payloads()) record.payload = VerdictPayload(request);
  if (absl::Status audited =
          services.audit.Write(std::move(record), *target, started);
      !audited.ok()) {
    return audited;
  }
  return response;
}

}  // namespace toolgate
