#include "core/mesh/tool_response.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/mesh/sse_reader.h"

namespace toolgate {
namespace mesh {
namespace {

// The media type without parameters, lower case.
std::string MediaType(absl::string_view content_type) {
  return absl::AsciiStrToLower(absl::StripAsciiWhitespace(
      content_type.substr(0, content_type.find(';'))));
}

// A charset other than UTF-8 makes some clients (httpx, requests) decode
// the bytes toolgate read as UTF-8 into other text.
bool CharsetIsUtf8(absl::string_view content_type) {
  for (absl::string_view param :
       absl::StrSplit(content_type, ';', absl::SkipEmpty())) {
    param = absl::StripAsciiWhitespace(param);
    const size_t eq = param.find('=');
    if (eq == absl::string_view::npos) continue;
    const std::string key =
        absl::AsciiStrToLower(absl::StripAsciiWhitespace(param.substr(0, eq)));
    if (key != "charset") continue;
    absl::string_view value = absl::StripAsciiWhitespace(param.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    if (absl::AsciiStrToLower(value) != "utf-8") return false;
  }
  return true;
}

// Exactly a JSON-RPC 2.0 response for `id`: no other member, which a
// client reading the whole body (a REST client) would see unchecked and
// the MCP TypeScript SDK refuses.
bool IsResponseFor(const Json& message, const Json& id) {
  if (!message.is_object() || message.value("jsonrpc", Json()) != "2.0" ||
      !message.contains("id") || message["id"] != id) {
    return false;
  }
  for (const auto& member : message.items()) {
    const std::string& key = member.key();
    if (key != "jsonrpc" && key != "id" && key != "result" && key != "error") {
      return false;
    }
  }
  return true;
}

bool IsNotification(const Json& message) {
  return message.is_object() && message.contains("method") &&
         !message.contains("id") && message.value("jsonrpc", Json()) == "2.0";
}

absl::Status Refuse(absl::string_view reason, absl::string_view detail) {
  return absl::InvalidArgumentError(absl::StrCat(reason, ": ", detail));
}

absl::StatusOr<Json> FromEvents(absl::string_view body, const Json& id,
                                const JsonLimits& limits) {
  absl::StatusOr<std::vector<std::string>> events = ReadSseEvents(body);
  if (!events.ok()) {
    return Refuse("unreadable_response", events.status().message());
  }
  Json found;
  bool have = false;
  for (const std::string& data : *events) {
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

absl::StatusOr<Json> FindToolResponse(absl::string_view content_type,
                                      absl::string_view body, const Json& id,
                                      const JsonLimits& limits) {
  const std::string type = MediaType(content_type);
  if ((type != "text/event-stream" && type != "application/json") ||
      !CharsetIsUtf8(content_type)) {
    return Refuse("unsupported_content_type",
                  absl::StrCat("content type \"", content_type, "\""));
  }
  if (body.size() > limits.max_bytes) {
    return Refuse("body_too_large",
                  absl::StrCat("the answer has ", body.size(),
                               " bytes, over --max_input_bytes (",
                               limits.max_bytes, ")"));
  }
  if (type == "text/event-stream") return FromEvents(body, id, limits);
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
