#include "core/pipeline/resolve.h"

#include <string>
#include <utility>

namespace toolgate {
namespace pipeline {

namespace {

// The run's attributes on the server span: ids, the model and the tenant
// (run context a caller set), never the token.
void TraceTarget(const Target& target, trace::RequestTrace& trace) {
  trace.Set("toolgate.snapshot_id", target.snapshot->id());
  if (target.run == nullptr) return;
  trace.Set("toolgate.run_id", target.run->id());
  trace.Set("gen_ai.request.model", target.run->model());
  auto tenant = target.run->context().find(kTenantContextKey);
  trace.Set("toolgate.tenant", tenant == target.run->context().end()
                                   ? std::string()
                                   : tenant->second);
}

}  // namespace

absl::Status Resolve(CallContext& call) {
  const ValidateCallRequest& request = call.request;
  if (request.kind == OutputKind::kUnset) {
    return absl::InvalidArgumentError(
        "model_output is required: set text, native_json or stream_events");
  }
  if (request.kind == OutputKind::kStream &&
      request.stream_format == stream::Format::kUnspecified) {
    return absl::InvalidArgumentError(
        "stream_events.format is required: STREAM_FORMAT_UNSPECIFIED names "
        "no provider's event shapes");
  }
  absl::StatusOr<Target> target = call.services.Resolve(
      request.snapshot_id, request.run_id, request.run_token);
  if (!target.ok()) return target.status();
  call.target = *std::move(target);
  call.response.snapshot_id = call.target.snapshot->id();
  if (request.trace != nullptr) TraceTarget(call.target, *request.trace);
  absl::StatusOr<std::string> audit_id = call.services.audit.NewId();
  if (!audit_id.ok()) return audit_id.status();
  call.response.audit_id = *std::move(audit_id);
  return absl::OkStatus();
}

}  // namespace pipeline
}  // namespace toolgate
