#include "core/mesh/stdio_message.h"

#include <utility>

namespace toolgate {
namespace mesh {
namespace {

StdioMessage Invalid(Json id, const char* reason) {
  StdioMessage m;
  m.kind = StdioKind::kInvalid;
  if (id.is_string() || id.is_number_integer() || id.is_number_unsigned()) {
    m.id_key = CanonicalJson(id);
    m.id = std::move(id);
  }
  m.invalid_reason = reason;
  return m;
}

bool IsId(const Json& id) {
  return id.is_string() || id.is_number_integer() || id.is_number_unsigned();
}

// Every member is one of `allowed`.
bool OnlyMembers(const Json& message,
                 std::initializer_list<const char*> allowed) {
  for (const auto& item : message.items()) {
    bool known = false;
    for (const char* name : allowed) known = known || item.key() == name;
    if (!known) return false;
  }
  return true;
}

StdioMessage ClassifyResponse(const Json& message, const Json& id) {
  const bool result = message.contains("result");
  const bool error = message.contains("error");
  if (result == error) return Invalid(id, "ambiguous_message");
  if (!OnlyMembers(message, {"jsonrpc", "id", "result", "error"})) {
    return Invalid(id, "unexpected_member");
  }
  if (!id.is_null() && !IsId(id)) return Invalid(nullptr, "invalid_id");
  // Only an error may answer a request nobody could read (id null).
  if (id.is_null() && result) return Invalid(nullptr, "invalid_id");
  if (error) {
    const Json& e = message["error"];
    if (!e.is_object() || !e.contains("code") ||
        !(e["code"].is_number_integer() || e["code"].is_number_unsigned()) ||
        !e.contains("message") || !e["message"].is_string()) {
      return Invalid(id, "invalid_error");
    }
  }
  StdioMessage m;
  m.kind = StdioKind::kResponse;
  m.has_result = result;
  if (!id.is_null()) m.id_key = CanonicalJson(id);
  m.id = id;
  return m;
}

}  // namespace

StdioMessage ClassifyStdioMessage(const Json& message) {
  if (!message.is_object()) return Invalid(nullptr, "not_jsonrpc");
  auto id_it = message.find("id");
  const bool has_id = id_it != message.end();
  const Json id = has_id ? *id_it : Json(nullptr);
  auto version = message.find("jsonrpc");
  if (version == message.end() || *version != "2.0") {
    return Invalid(id, "not_jsonrpc");
  }
  auto method = message.find("method");
  if (method == message.end()) {
    if (!has_id) return Invalid(nullptr, "not_jsonrpc");
    return ClassifyResponse(message, id);
  }
  if (message.contains("result") || message.contains("error")) {
    return Invalid(id, "ambiguous_message");
  }
  if (!OnlyMembers(message, {"jsonrpc", "id", "method", "params"})) {
    return Invalid(id, "unexpected_member");
  }
  if (has_id && !IsId(id)) return Invalid(nullptr, "invalid_id");
  if (!method->is_string() || method->get_ref<const std::string&>().empty()) {
    return Invalid(id, "invalid_method");
  }
  auto params = message.find("params");
  if (params != message.end() && !params->is_object() && !params->is_array()) {
    return Invalid(id, "invalid_params");
  }
  StdioMessage m;
  m.kind = has_id ? StdioKind::kRequest : StdioKind::kNotification;
  m.method = method->get<std::string>();
  if (has_id) {
    m.id = id;
    m.id_key = CanonicalJson(id);
  }
  return m;
}

}  // namespace mesh
}  // namespace toolgate
