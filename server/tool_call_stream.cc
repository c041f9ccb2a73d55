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

// assembled_bytes() walks every call: measured this often, not per message.
constexpr size_t kMeasureEvery = 64 << 10;

}  // namespace

size_t MaxStreamMessages(const EngineOptions& options) {
  return options.max_stream_events + 1;
}

size_t MaxStreamWireBytes(const EngineOptions& options) {
  return 4 * MaxStreamBytes(options);
}

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
  header_bytes_ = header_.ByteSizeLong();
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

absl::Status ToolCallStream::Add(const v1::ToolCallStreamRequest& message,
                                 size_t wire_bytes) {
  absl::Status status = started_ ? CheckHeader(message) : SetHeader(message);
  if (!status.ok()) return status;
  ++messages_;
  wire_bytes_ += wire_bytes;
  if (messages_ > MaxStreamMessages(options_)) {
    Refuse(absl::StrCat("the stream has more than ",
                        MaxStreamMessages(options_), " messages"));
  } else if (wire_bytes_ > MaxStreamWireBytes(options_)) {
    Refuse(absl::StrCat("the stream's messages hold more than ",
                        MaxStreamWireBytes(options_), " bytes"));
  } else {
    AddEvents(message);
  }
  return absl::OkStatus();
}

void ToolCallStream::AddEvents(const v1::ToolCallStreamRequest& message) {
  for (const std::string& event : message.events()) {
    assembler_->Add(event);
    // Kept for the audit payload only while the stream is within bounds
    // (a refused stream's audit records only what was refused: the event
    // at fault too, unless it passed a bound).
    if (options_.audit_payloads &&
        assembler_->events() <= options_.max_stream_events &&
        assembler_->bytes() <= MaxStreamBytes(options_)) {
      kept_events_.push_back(event);
      kept_bytes_ += event.size();
    }
    // Nothing more is read once the answer is fixed.
    if (assembler_->refused()) return;
  }
}

void ToolCallStream::Refuse(std::string message) {
  refused_.code = std::string(stream::kInputTooLarge);
  refused_.message = std::move(message);
}

bool ToolCallStream::decided() const {
  return !refused_.ok() || (started_ && assembler_->refused());
}

size_t ToolCallStream::held_bytes() {
  if (!started_) return 0;
  const size_t events = assembler_->bytes();
  if (events >= measured_at_ + kMeasureEvery) {
    assembled_bytes_ = assembler_->assembled_bytes();
    measured_at_ = events;
  }
  return header_bytes_ + assembled_bytes_ + (events - measured_at_) +
         kept_bytes_;
}

absl::StatusOr<ValidateCallRequest> ToolCallStream::Finish() {
  if (!started_) {
    return absl::InvalidArgumentError(
        "ValidateToolCallStream: the call carried no message");
  }
  // The assembler's refusal, when it came first, is the one reported.
  const bool assembler_refused = assembler_->refused();
  assembly_ = assembler_->Finish();
  if (!refused_.ok() && !assembler_refused) assembly_ = {refused_, false, ""};
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
