#include "core/mesh/tool_response.h"

#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
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

// Hands `visit` each event's message but notifications, in order; stops
// at the first event that cannot be read or that `visit` refuses.
absl::Status VisitEvents(absl::string_view body, const JsonLimits& limits,
                         const std::function<absl::Status(Json)>& visit) {
  absl::StatusOr<std::vector<std::string>> events = ReadSseEvents(body);
  if (!events.ok()) {
    return Refuse("unreadable_response", events.status().message());
  }
  for (const std::string& data : *events) {
    absl::StatusOr<Json> message = ParseStrictJson(data, limits);
    if (!message.ok()) {
      return Refuse("unreadable_response", message.status().message());
    }
    if (IsNotification(*message)) continue;
    if (absl::Status s = visit(*std::move(message)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// The content type and size every answer must have.
absl::Status CheckAnswerBody(absl::string_view content_type,
                             absl::string_view body, const JsonLimits& limits) {
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
  return absl::OkStatus();
}

bool IsEventStream(absl::string_view content_type) {
  return MediaType(content_type) == "text/event-stream";
}

// A batch's JSON answer: an array of messages, or one message.
absl::StatusOr<std::vector<Json>> JsonMessages(absl::string_view body,
                                               const JsonLimits& limits) {
  absl::StatusOr<Json> parsed = ParseStrictJson(body, limits);
  if (!parsed.ok()) {
    return Refuse("unreadable_response", parsed.status().message());
  }
  std::vector<Json> messages;
  if (!parsed->is_array()) {
    messages.push_back(*std::move(parsed));
    return messages;
  }
  messages.reserve(parsed->size());
  for (Json& m : *parsed) messages.push_back(std::move(m));
  return messages;
}

// Each message is a response (exactly one of result and error) to one of
// `ids`, each id answered once: `out[k]` answers ids[k].
absl::Status MatchResponses(std::vector<Json> messages,
                            const std::vector<Json>& ids,
                            std::vector<Json>* out) {
  absl::flat_hash_map<std::string, size_t> index;
  for (size_t k = 0; k < ids.size(); ++k) index[CanonicalJson(ids[k])] = k;
  out->assign(ids.size(), Json());
  std::vector<bool> answered(ids.size(), false);
  for (Json& m : messages) {
    auto id = m.is_object() ? m.find("id") : m.end();
    auto at = id != m.end() ? index.find(CanonicalJson(*id)) : index.end();
    if (at == index.end() || !IsResponseFor(m, *id) ||
        m.contains("result") == m.contains("error")) {
      return Refuse("unexpected_message",
                    "the answer holds a message other than one response to "
                    "each request of the batch and notifications");
    }
    if (answered[at->second]) {
      return Refuse("unexpected_message",
                    absl::StrCat("two responses for the id ", at->first));
    }
    answered[at->second] = true;
    (*out)[at->second] = std::move(m);
  }
  for (size_t k = 0; k < ids.size(); ++k) {
    if (!answered[k]) {
      return Refuse("no_response", absl::StrCat("no response to the id ",
                                                CanonicalJson(ids[k])));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Json> FindToolResponse(absl::string_view content_type,
                                      absl::string_view body, const Json& id,
                                      const JsonLimits& limits) {
  if (absl::Status s = CheckAnswerBody(content_type, body, limits); !s.ok()) {
    return s;
  }
  if (IsEventStream(content_type)) {
    std::optional<Json> found;
    absl::Status s = VisitEvents(body, limits, [&](Json message) {
      if (found.has_value() || !IsResponseFor(message, id)) {
        return Refuse("unexpected_message",
                      "the stream holds a message other than the one "
                      "response to the call and notifications");
      }
      found = std::move(message);
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
    if (!found) return Refuse("no_response", "no response to the call's id");
    return *std::move(found);
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

absl::StatusOr<std::vector<Json>> FindBatchResponses(
    absl::string_view content_type, absl::string_view body,
    const std::vector<Json>& ids, const JsonLimits& limits) {
  if (absl::Status s = CheckAnswerBody(content_type, body, limits); !s.ok()) {
    return s;
  }
  absl::StatusOr<std::vector<Json>> messages = std::vector<Json>();
  if (IsEventStream(content_type)) {
    absl::Status s = VisitEvents(body, limits, [&](Json message) {
      messages->push_back(std::move(message));
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
  } else {
    messages = JsonMessages(body, limits);
    if (!messages.ok()) return messages.status();
  }
  std::vector<Json> out;
  if (absl::Status s = MatchResponses(*std::move(messages), ids, &out);
      !s.ok()) {
    return s;
  }
  return out;
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
