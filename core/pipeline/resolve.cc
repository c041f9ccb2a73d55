#include "core/pipeline/resolve.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace toolgate {
namespace pipeline {
namespace {

using extract::TextFormat;

// The request's format, or the run's: a run reads all its text in the
// format it was opened with, and a request may only repeat it.
absl::StatusOr<TextFormat> EffectiveFormat(const ValidateCallRequest& request,
                                           const Run* run) {
  if (request.text_format == TextFormat::kUnrecognized) {
    return absl::InvalidArgumentError(
        "text_format: a TextFormat value this server does not name");
  }
  if (run == nullptr) return request.text_format;
  if (request.text_format != TextFormat::kUnspecified &&
      request.text_format != run->text_format()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "text_format ", extract::TextFormatProtoName(request.text_format),
        " is not the run's (", extract::TextFormatProtoName(run->text_format()),
        "): leave it unset or send the run's"));
  }
  return run->text_format();
}

}  // namespace

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
  // Every call in a run reaches "commit run state" or ends with no answer.
  absl::StatusOr<Target> target =
      call.services.Resolve(request.snapshot_id, request.run_id,
                            request.run_token, /*at_commit=*/true);
  if (!target.ok()) return target.status();
  call.target = *std::move(target);
  absl::StatusOr<TextFormat> format =
      EffectiveFormat(request, call.target.run.get());
  if (!format.ok()) return format.status();
  call.text_format = *format;
  call.response.snapshot_id = call.target.snapshot->id();
  if (request.trace != nullptr) {
    TraceTarget(call.target, *request.trace);
    // The format in effect, the run's included: the server's
    // extraction_path only sees the request's.
    if (call.text_format != TextFormat::kUnspecified) {
      request.trace->Set("toolgate.text_format",
                         std::string(extract::TextFormatName(call.text_format)));
    }
  }
  absl::StatusOr<std::string> audit_id = call.services.audit.NewId();
  if (!audit_id.ok()) return audit_id.status();
  call.response.audit_id = *std::move(audit_id);
  return absl::OkStatus();
}

}  // namespace pipeline
}  // namespace toolgate
