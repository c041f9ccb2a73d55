#include "core/mesh/tool_response.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace toolgate {
namespace mesh {
namespace {

// The media type without parameters, lower case.
std::string MediaType(absl::string_view content_type) {
  return absl::AsciiStrToLower(absl::StripAsciiWhitespace(
      content_type.substr(0, content_type.find(';'))));
}

bool IsResponseFor(const Json& message, const Json& id) {
  return message.is_object() && !message.contains("method") &&
         message.contains("id") && message["id"] == id &&
         message.value("jsonrpc", Json()) == "2.0";
}

bool IsNotification(const Json& message) {
  return message.is_object() && message.contains("method") &&
         !message.contains("id");
}

absl::Status Refuse(absl::string_view reason, absl::string_view detail) {
  return absl::InvalidArgumentError(absl::StrCat(reason, ": ", detail));
}

absl::StatusOr<Json> FromEvents(absl::string_view body, const Json& id,
                                const JsonLimits& limits) {
  Json found;
  bool have = false;
  for (const std::string& data : SseEventData(body)) {
    absl::StatusOr<Json> message = ParseStrictJson(data, limits);
    if (!message.ok()) {
      return Refuse("unreadable_response", message.status().message());
    }
    if (IsNotification(*message)) continue;
    if (have || !IsResponseFor(*message, id)) {
      return Refuse("unexpected_message",
                    "the stream holds a message other than the one response "
                    "to the call and notifications");
    }
    found = *std::move(message);
    have = true;
  }
  if (!have) return Refuse("no_response", "no response to the call's id");
  return found;
}

}  // namespace

std::vector<std::string> SseEventData(absl::string_view body) {
  std::vector<std::string> events;
  std::string data;
  bool has_data = false;
  auto flush = [&] {
    if (has_data) events.push_back(data);
    data.clear();
    has_data = false;
  };
  while (!body.empty()) {
    const size_t end = body.find_first_of("\r\n");
    const absl::string_view line = body.substr(0, end);
    if (end == absl::string_view::npos) {
      body = {};
    } else {
      const bool crlf =
          body[end] == '\r' && end + 1 < body.size() && body[end + 1] == '\n';
      body.remove_prefix(end + (crlf ? 2 : 1));
    }
    if (line.empty()) {
      flush();
      continue;
    }
    const size_t colon = line.find(':');
    if (line.substr(0, colon) != "data") continue;  // event:, id:, comments.
    absl::string_view value =
        colon == absl::string_view::npos ? "" : line.substr(colon + 1);
    if (absl::StartsWith(value, " ")) value.remove_prefix(1);
    if (has_data) data.push_back('\n');
    data.append(value.data(), value.size());
    has_data = true;
  }
  flush();  // A stream ended without its last blank line.
  return events;
}

absl::StatusOr<Json> FindToolResponse(absl::string_view content_type,
                                      absl::string_view body, const Json& id,
                                      const JsonLimits& limits) {
  const std::string type = MediaType(content_type);
  if (type == "text/event-stream") return FromEvents(body, id, limits);
  if (type != "application/json") {
    return Refuse("unsupported_content_type",
                  absl::StrCat("content type \"", content_type, "\""));
  }
  absl::StatusOr<Json> message = ParseStrictJson(body, limits);
  if (!message.ok()) {
    return Refuse("unreadable_response", message.status().message());
  }
  if (!IsResponseFor(*message, id)) {
    return Refuse("unexpected_message", "not the response to the call's id");
  }
  return message;
}

absl::StatusOr<std::string> ToolResultBody(const Json& response) {
  auto result = response.find("result");
  if (response.contains("error") || result == response.end()) {
    return Refuse("tool_error", "the tool server answered with an error");
  }
  return CanonicalJson(*result);
}

}  // namespace mesh
}  // namespace toolgate
