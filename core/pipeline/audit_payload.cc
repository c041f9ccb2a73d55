#include "core/pipeline/audit_payload.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace toolgate {
namespace {

constexpr char kStrict[] = "REPAIR_POLICY_STRICT";
constexpr char kSyntaxRepair[] = "REPAIR_POLICY_SYNTAX_REPAIR";

const char* RepairName(bool syntax_repair) {
  return syntax_repair ? kSyntaxRepair : kStrict;
}

const char* ModeName(output::OutputMode mode) {
  switch (mode) {
    case output::OutputMode::kFailClosed:
      return "OUTPUT_MODE_FAIL_CLOSED";
    case output::OutputMode::kDegrade:
      return "OUTPUT_MODE_DEGRADE";
    case output::OutputMode::kUnspecified:
      break;
  }
  return "OUTPUT_MODE_UNSPECIFIED";
}

absl::Status Missing(const char* member, const char* type) {
  return absl::InvalidArgumentError(
      absl::StrCat("audit payload: \"", member, "\" must be ", type));
}

// The member's string, "" when absent; an error when not a string.
absl::StatusOr<const std::string*> OptionalString(const Json& payload,
                                                  const char* member) {
  static const std::string* const kEmpty = new std::string();
  auto it = payload.find(member);
  if (it == payload.end()) return kEmpty;
  if (!it->is_string()) return Missing(member, "a string");
  return it->get_ptr<const std::string*>();
}

// Absent means STRICT, as REPAIR_POLICY_UNSPECIFIED does on the wire.
absl::StatusOr<bool> SyntaxRepair(const Json& payload) {
  auto name = OptionalString(payload, "repair");
  if (!name.ok()) return name.status();
  if (**name == kSyntaxRepair) return true;
  if ((*name)->empty() || **name == kStrict ||
      **name == "REPAIR_POLICY_UNSPECIFIED") {
    return false;
  }
  return Missing("repair", "a RepairPolicy name");
}

// forward_as_sent, false when absent.
absl::StatusOr<bool> AsSent(const Json& payload) {
  auto it = payload.find("forward_as_sent");
  if (it == payload.end()) return false;
  if (!it->is_boolean()) return Missing("forward_as_sent", "a boolean");
  return it->get<bool>();
}

std::string StreamFormatName(stream::Format format) {
  return absl::StrCat("STREAM_FORMAT_",
                      absl::AsciiStrToUpper(stream::FormatName(format)));
}

// A stream's events in proto JSON form; replay assembles them again.
Json StreamPayload(const ValidateCallRequest& request) {
  Json events = Json::array();
  for (absl::string_view e : request.stream_events) {
    events.push_back(std::string(e));
  }
  return {{"format", StreamFormatName(request.stream_format)},
          {"events", std::move(events)}};
}

absl::Status StreamFromPayload(const Json& payload,
                               ValidateCallRequest* request) {
  const Json& stream = *payload.find("stream_events");  // Present.
  if (!stream.is_object()) return Missing("stream_events", "an object");
  auto format = OptionalString(stream, "format");
  if (!format.ok()) return format.status();
  std::optional<stream::Format> parsed = stream::ParseFormat(**format);
  if (!parsed) return Missing("stream_events.format", "a StreamFormat name");
  auto events = stream.find("events");
  if (events != stream.end() && !events->is_array()) {
    return Missing("stream_events.events", "a list");
  }
  request->kind = OutputKind::kStream;
  request->stream_format = *parsed;
  if (events == stream.end()) return absl::OkStatus();
  for (const Json& e : *events) {
    if (!e.is_string()) return Missing("stream_events.events", "strings");
    request->stream_events.push_back(e.get_ref<const std::string&>());
  }
  return absl::OkStatus();
}

// Absent means UNSPECIFIED, as on the wire.
absl::Status TextFormatFromPayload(const Json& payload,
                                   ValidateCallRequest* request) {
  auto name = OptionalString(payload, "text_format");
  if (!name.ok()) return name.status();
  if ((*name)->empty()) return absl::OkStatus();
  std::optional<extract::TextFormat> format = extract::ParseTextFormat(**name);
  if (!format) return Missing("text_format", "a TextFormat name");
  request->text_format = *format;
  return absl::OkStatus();
}

}  // namespace

Json CallPayload(const ValidateCallRequest& request) {
  Json payload = Json::object();
  if (request.kind == OutputKind::kText) {
    payload["text"] = std::string(request.output);
  } else if (request.kind == OutputKind::kNative) {
    payload["native_json"] = std::string(request.output);
  } else if (request.kind == OutputKind::kStream) {
    payload["stream_events"] = StreamPayload(request);
  }
  payload["repair"] = RepairName(request.syntax_repair);
  if (request.text_format != extract::TextFormat::kUnspecified) {
    payload["text_format"] =
        std::string(extract::TextFormatProtoName(request.text_format));
  }
  // Set by the mesh hook; absent (false) for almost every call.
  if (request.forward_as_sent) payload["forward_as_sent"] = true;
  return payload;
}

Json VerdictPayload(const VerdictRequest& request) {
  Json payload = {{"envelope", request.envelope},
                  {"repair", RepairName(request.syntax_repair)}};
  if (!request.result_schema.empty()) {
    payload["result_schema"] = request.result_schema;
  }
  return payload;
}

Json OutputPayload(const ValidateOutputRequest& request) {
  return {{"tool_name", request.tool_name},
          {"content_type", request.content_type},
          {"http_status", request.http_status},
          {"body", absl::Base64Escape(request.body)},
          {"mode", ModeName(request.mode)}};
}

absl::StatusOr<ValidateCallRequest> CallFromPayload(const Json& payload) {
  if (!payload.is_object()) return Missing("payload", "an object");
  ValidateCallRequest request;
  const bool text = payload.contains("text");
  const int given = text + payload.contains("native_json") +
                    payload.contains("stream_events");
  if (given != 1) {
    return Missing("text\", \"native_json\" or \"stream_events",
                   "given (exactly one)");
  }
  if (absl::Status s = TextFormatFromPayload(payload, &request); !s.ok()) {
    return s;
  }
  if (payload.contains("stream_events")) {
    if (absl::Status s = StreamFromPayload(payload, &request); !s.ok()) {
      return s;
    }
    auto repair = SyntaxRepair(payload);
    if (!repair.ok()) return repair.status();
    request.syntax_repair = *repair;
    auto as_sent = AsSent(payload);
    if (!as_sent.ok()) return as_sent.status();
    request.forward_as_sent = *as_sent;
    return request;
  }
  auto output = OptionalString(payload, text ? "text" : "native_json");
  if (!output.ok()) return output.status();
  request.kind = text ? OutputKind::kText : OutputKind::kNative;
  request.output = **output;
  auto repair = SyntaxRepair(payload);
  if (!repair.ok()) return repair.status();
  request.syntax_repair = *repair;
  auto as_sent = AsSent(payload);
  if (!as_sent.ok()) return as_sent.status();
  request.forward_as_sent = *as_sent;
  return request;
}

absl::StatusOr<VerdictRequest> VerdictFromPayload(const Json& payload) {
  if (!payload.is_object()) return Missing("payload", "an object");
  VerdictRequest request;
  auto envelope = OptionalString(payload, "envelope");
  if (!envelope.ok()) return envelope.status();
  auto schema = OptionalString(payload, "result_schema");
  if (!schema.ok()) return schema.status();
  auto repair = SyntaxRepair(payload);
  if (!repair.ok()) return repair.status();
  request.envelope = **envelope;
  request.result_schema = **schema;
  request.syntax_repair = *repair;
  return request;
}

absl::StatusOr<ValidateOutputRequest> OutputFromPayload(const Json& payload,
                                                        std::string* bytes) {
  if (!payload.is_object()) return Missing("payload", "an object");
  ValidateOutputRequest request;
  auto tool = OptionalString(payload, "tool_name");
  auto type = OptionalString(payload, "content_type");
  auto body = OptionalString(payload, "body");
  auto mode = OptionalString(payload, "mode");
  for (const auto* s : {&tool, &type, &body, &mode}) {
    if (!s->ok()) return s->status();
  }
  auto status = payload.find("http_status");
  if (status != payload.end() &&
      !(status->is_number_integer() && status->get<int64_t>() >= INT32_MIN &&
        status->get<int64_t>() <= INT32_MAX)) {
    return Missing("http_status", "a 32-bit integer");
  }
  if (!absl::Base64Unescape(**body, bytes)) {
    return Missing("body", "base64");
  }
  request.tool_name = **tool;
  request.content_type = **type;
  request.http_status = status == payload.end() ? 0 : status->get<int>();
  request.body = *bytes;
  if (**mode == "OUTPUT_MODE_DEGRADE") {
    request.mode = output::OutputMode::kDegrade;
  } else if (**mode == "OUTPUT_MODE_FAIL_CLOSED") {
    request.mode = output::OutputMode::kFailClosed;
  } else if (!(*mode)->empty() && **mode != "OUTPUT_MODE_UNSPECIFIED") {
    return Missing("mode", "an OutputMode name");
  }
  return request;
}

}  // namespace toolgate
