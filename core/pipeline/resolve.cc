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
  absl::StatusOr<TextFormat> format =
      EffectiveFormat(request, call.target.run.get());
  if (!format.ok()) return format.status();
  call.text_format = *format;
  call.response.snapshot_id = call.target.snapshot->id();
  absl::StatusOr<std::string> audit_id = call.services.audit.NewId();
  if (!audit_id.ok()) return audit_id.status();
  call.response.audit_id = *std::move(audit_id);
  return absl::OkStatus();
}

}  // namespace pipeline
}  // namespace toolgate
