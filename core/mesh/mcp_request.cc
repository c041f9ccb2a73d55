#include "core/mesh/mcp_request.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace toolgate {
namespace mesh {
namespace {

constexpr absl::string_view kPassThrough[] = {
    "initialize",       "ping",           "tools/list",
    "resources/list",   "resources/read", "resources/templates/list",
    "prompts/list",     "prompts/get",    "completion/complete",
    "logging/setLevel",
};

McpMessage Deny(Json id, std::string method, absl::string_view reason) {
  McpMessage m;
  m.kind = McpKind::kDeny;
  m.id = std::move(id);
  m.method = std::move(method);
  m.deny_reason = std::string(reason);
  return m;
}

// A JSON-RPC id is a string, a number or absent (notification).
bool ValidId(const Json& id) {
  return id.is_null() || id.is_string() || id.is_number_integer() ||
         id.is_number_unsigned();
}

McpMessage Classify(const Json& message) {
  if (!message.is_object()) return Deny(nullptr, "", "not_jsonrpc");
  Json id = message.contains("id") ? message["id"] : Json(nullptr);
  if (!ValidId(id)) id = nullptr;
  auto version = message.find("jsonrpc");
  if (version == message.end() || *version != "2.0") {
    return Deny(id, "", "not_jsonrpc");
  }
  auto method = message.find("method");
  if (method == message.end()) return Deny(id, "", "not_a_request");
  if (!method->is_string()) return Deny(id, "", "not_jsonrpc");
  const std::string name = method->get<std::string>();
  if (message.contains("id") && !ValidId(message["id"])) {
    return Deny(nullptr, name, "not_jsonrpc");
  }
  if (name == "tools/call") {
    McpMessage m;
    m.kind = McpKind::kToolCall;
    m.id = id;
    m.method = name;
    auto params = message.find("params");
    // A params that is not an object still goes to the gate as it is: the
    // native reader refuses it there with its own violation.
    const Json p = params == message.end() ? Json(nullptr) : *params;
    if (p.is_object() && p.contains("name") && p["name"].is_string()) {
      m.tool = p["name"].get<std::string>();
    }
    m.params_json = CanonicalJson(p);
    return m;
  }
  if (IsPassThroughMethod(name)) {
    McpMessage m;
    m.kind = McpKind::kPassThrough;
    m.id = id;
    m.method = name;
    return m;
  }
  return Deny(id, name, "method_not_allowed");
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

absl::StatusOr<std::string> PercentDecode(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    const int hi = i + 2 < s.size() ? HexValue(s[i + 1]) : -1;
    const int lo = i + 2 < s.size() ? HexValue(s[i + 2]) : -1;
    if (hi < 0 || lo < 0) return absl::NotFoundError("bad percent escape");
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

}  // namespace

bool IsPassThroughMethod(absl::string_view method) {
  if (absl::StartsWith(method, "notifications/")) return true;
  for (absl::string_view m : kPassThrough) {
    if (m == method) return true;
  }
  return false;
}

absl::StatusOr<McpBody> ReadMcpBody(absl::string_view body,
                                    const JsonLimits& limits) {
  absl::StatusOr<Json> parsed = ParseStrictJson(body, limits);
  if (!parsed.ok()) return parsed.status();
  McpBody out;
  if (parsed->is_array()) {
    if (parsed->empty()) {
      return MakeJsonError("invalid_batch", "", "an empty JSON-RPC batch");
    }
    out.batch = true;
    for (const Json& message : *parsed) {
      out.messages.push_back(Classify(message));
    }
    return out;
  }
  out.messages.push_back(Classify(*parsed));
  return out;
}

Json RequestIdOf(absl::string_view body, const JsonLimits& limits) {
  absl::StatusOr<Json> parsed = ParseStrictJson(body, limits);
  if (!parsed.ok() || !parsed->is_object()) return nullptr;
  auto id = parsed->find("id");
  return id != parsed->end() && ValidId(*id) ? *id : Json(nullptr);
}

absl::StatusOr<std::string> MatchToolPath(absl::string_view path_template,
                                          absl::string_view path) {
  constexpr absl::string_view kHole = "{name}";
  const size_t hole = path_template.find(kHole);
  if (hole == absl::string_view::npos ||
      path_template.find(kHole, hole + 1) != absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("toolgate_tool_path \"", path_template,
                     "\" must hold exactly one {name} segment"));
  }
  path = path.substr(0, path.find('?'));
  const absl::string_view prefix = path_template.substr(0, hole);
  const absl::string_view suffix = path_template.substr(hole + kHole.size());
  if (path.size() <= prefix.size() + suffix.size() ||
      !absl::StartsWith(path, prefix) || !absl::EndsWith(path, suffix)) {
    return absl::NotFoundError(
        absl::StrCat("path ", path, " does not match ", path_template));
  }
  const absl::string_view raw =
      path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  absl::StatusOr<std::string> name = PercentDecode(raw);
  if (!name.ok() || name->empty() || name->find('/') != std::string::npos) {
    return absl::NotFoundError(absl::StrCat(
        "path ", path, " does not name one tool in ", path_template));
  }
  return name;
}

}  // namespace mesh
}  // namespace toolgate
