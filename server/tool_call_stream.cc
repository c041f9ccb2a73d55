#include "server/tool_call_stream.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "server/convert.h"

namespace toolgate {
namespace server {
namespace {

absl::Status Differs(const char* field) {
  return absl::InvalidArgumentError(absl::StrCat(
      "ValidateToolCallStream: ", field,
      " differs from the first message's (header fields are set once; later "
      "messages leave them unset or repeat them)"));
}

}  // namespace

ToolCallStream::ToolCallStream(const EngineOptions& options)
    : options_(options) {}

absl::Status ToolCallStream::SetHeader(
    const v1::ToolCallStreamRequest& message) {
  const stream::Format format = FromProto(message.stream_format());
  if (format == stream::Format::kUnspecified) {
    return absl::InvalidArgumentError(
        "ValidateToolCallStream: the first message must set stream_format "
        "(STREAM_FORMAT_UNSPECIFIED names no provider's event shapes)");
  }
  header_ = message;
  header_.clear_events();
  assembler_ = stream::Assembler::Create(format, StreamLimitsFor(options_));
  started_ = true;
  return absl::OkStatus();
}

absl::Status ToolCallStream::CheckHeader(
    const v1::ToolCallStreamRequest& m) const {
  const std::pair<const char*,
                  std::pair<const std::string*, const std::string*>>
      strings[] = {
          {"snapshot_id", {&m.snapshot_id(), &header_.snapshot_id()}},
          {"run_id", {&m.run_id(), &header_.run_id()}},
          {"run_token", {&m.run_token(), &header_.run_token()}},
          {"approval_id", {&m.approval_id(), &header_.approval_id()}},
      };
  for (const auto& [field, values] : strings) {
    if (!values.first->empty() && *values.first != *values.second) {
      return Differs(field);
    }
  }
  if (m.repair() != v1::REPAIR_POLICY_UNSPECIFIED &&
      m.repair() != header_.repair()) {
    return Differs("repair");
  }
  if (m.stream_format() != v1::STREAM_FORMAT_UNSPECIFIED &&
      m.stream_format() != header_.stream_format()) {
    return Differs("stream_format");
  }
  return absl::OkStatus();
}

absl::Status ToolCallStream::Add(const v1::ToolCallStreamRequest& message) {
  absl::Status status = started_ ? CheckHeader(message) : SetHeader(message);
  if (!status.ok()) return status;
  for (const std::string& event : message.events()) {
    assembler_->Add(event);
    // Kept for the audit payload only while the stream is within bounds
    // (a refused stream's audit records only what was refused).
    if (options_.audit_payloads &&
        assembler_->events() <= options_.max_stream_events &&
        assembler_->bytes() <= MaxStreamBytes(options_)) {
      kept_events_.push_back(event);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ValidateCallRequest> ToolCallStream::Finish() {
  if (!started_) {
    return absl::InvalidArgumentError(
        "ValidateToolCallStream: the call carried no message");
  }
  assembly_ = assembler_->Finish();
  ValidateCallRequest out;
  out.snapshot_id = header_.snapshot_id();
  out.run_id = header_.run_id();
  out.run_token = header_.run_token();
  out.kind = OutputKind::kStream;
  out.stream_format = assembler_->format();
  out.assembled = &assembly_;
  out.stream_events.assign(kept_events_.begin(), kept_events_.end());
  out.syntax_repair = header_.repair() == v1::REPAIR_POLICY_SYNTAX_REPAIR;
  out.approval_id = header_.approval_id();
  return out;
}

}  // namespace server
}  // namespace toolgate
