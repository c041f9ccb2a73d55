// What an MCP client sent, as the mesh hook (Envoy ext_authz) reads it.
//
// MCP over Streamable HTTP carries one JSON-RPC message per POST body (or,
// in older revisions, a batch). Each message is classified:
//   kToolCall     "tools/call": params.name and params.arguments are checked
//                 like a native call (ValidateToolCall, native MCP params)
//   kPassThrough  lifecycle and read methods (IsPassThroughMethod) that run
//                 no tool: allowed without a decision
//   kDeny         anything else: another method, a response or a message
//                 that is not JSON-RPC 2.0 (refused: absence of a known
//                 shape is never an allow)
// A body that is not exactly one JSON value (strictly parsed), an empty
// batch, or a batch element that is not an object is unreadable as a whole.
//
// REST tool servers have no JSON-RPC: the route's path template
// (`/tools/{name}`) names the tool and the body is its arguments.
//
// Thread-safety: pure functions over values.
#ifndef TOOLGATE_CORE_MESH_MCP_REQUEST_H_
#define TOOLGATE_CORE_MESH_MCP_REQUEST_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"

namespace toolgate {
namespace mesh {

enum class McpKind { kToolCall, kPassThrough, kDeny };

struct McpMessage {
  McpKind kind = McpKind::kDeny;
  Json id;             // The JSON-RPC id; null when absent.
  std::string method;  // Empty when the message has none.
  std::string tool;    // kToolCall: params.name (may be empty if missing).
  // kToolCall: the params object as canonical JSON (native MCP call input
  // for ValidateToolCall; its name/arguments are checked there).
  std::string params_json;
  // kDeny: a stable snake_case reason (method_not_allowed, not_a_request,
  // not_jsonrpc).
  std::string deny_reason;
};

struct McpBody {
  bool batch = false;
  std::vector<McpMessage> messages;
};

// Methods that never run a tool: initialize, ping, notifications/*,
// tools/list, resources/list|read|templates/list, prompts/list|get,
// completion/complete, logging/setLevel.
bool IsPassThroughMethod(absl::string_view method);

// INVALID_ARGUMENT with a ParseStrictJson code (or "invalid_batch") when
// the body cannot be read as JSON-RPC at all.
absl::StatusOr<McpBody> ReadMcpBody(absl::string_view body,
                                    const JsonLimits& limits);

// The id of a body that is one JSON-RPC message, else null: for a deny
// decided before the body was read (no snapshot, ...), so the client can
// still match the error to its request.
Json RequestIdOf(absl::string_view body, const JsonLimits& limits);

// Matches `path` (query string ignored) against a template holding one
// `{name}` segment, e.g. "/tools/{name}" or "/api/{name}/invoke". The
// name is percent-decoded and must be non-empty without '/'. NOT_FOUND
// when the path does not match; INVALID_ARGUMENT for a bad template.
absl::StatusOr<std::string> MatchToolPath(absl::string_view path_template,
                                          absl::string_view path);

}  // namespace mesh
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MESH_MCP_REQUEST_H_
