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
// Read the same as the reference, or refused. The reference is what an MCP
// server reads from the same bytes: JSON.parse and the MCP TypeScript
// SDK's JSON-RPC schema (tests/mesh/reference/). So besides what
// ParseStrictJson refuses (duplicate keys, lone surrogates, invalid UTF-8,
// trailing bytes):
//   * a number JSON.parse reads as another number (an integer no double
//     holds, e.g. 9007199254740993) makes the body unreadable
//     (number_inexact);
//   * an id that is null, fractional or an integer past 2^53-1 is
//     not_jsonrpc (the SDK refuses it; a JavaScript client could not match
//     its answer);
//   * two messages of a batch with the same id (as JSON values: 1 and "1"
//     differ) are each duplicate_id: their answers could not be told apart;
//   * a tools/call whose params are not an object holding "name" or
//     "arguments" is invalid_params (the engine would read it as another
//     shape of native output: an OpenAI or Anthropic message).
//
// REST tool servers have no JSON-RPC: the route's path template
// (`/tools/{name}`) names the tool and the body is its arguments.
//
// Thread-safety: pure functions over values.
#ifndef TOOLGATE_CORE_MESH_MCP_REQUEST_H_
#define TOOLGATE_CORE_MESH_MCP_REQUEST_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"
#include "core/mesh/http_headers.h"

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
  // kToolCall: params.arguments as canonical JSON, "" when absent: what an
  // ALLOW must have decided (the tool server gets exactly these).
  std::string arguments_json;
  // kDeny: a stable snake_case reason (method_not_allowed, not_a_request,
  // not_jsonrpc, invalid_params, duplicate_id).
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

// ParseStrictJson, and then no number JSON.parse would read as another
// one (number_inexact, with its pointer): every body the mesh reads.
absl::StatusOr<Json> ReadMeshJson(absl::string_view body,
                                  const JsonLimits& limits);

// A request body read once: what its decision, every deny and the check
// of its answer read (nothing parses it again).
struct McpRequest {
  // OK, or INVALID_ARGUMENT with a ParseStrictJson code (or
  // "invalid_batch", "number_inexact") when the body cannot be read as
  // JSON-RPC at all; `body` is then empty.
  absl::Status status;
  bool empty = false;  // The body had no bytes (a DELETE, a GET).
  McpBody body;
  // The id of a body that is one JSON-RPC message (as JSON: read even when
  // a number in it is inexact), else null: for a deny decided before the
  // body's messages are (no snapshot, ...), so the client can still match
  // the error to its request.
  Json id;
};
McpRequest ReadMcpRequest(absl::string_view body, const JsonLimits& limits);

// One message a transport already parsed strictly (the stdio gateway reads
// each line once, then routes it): read as ReadMcpRequest reads a body
// holding it alone, number_inexact included.
McpRequest ReadMcpMessage(const Json& message);

// ReadMcpRequest's status and body, and its id alone.
absl::StatusOr<McpBody> ReadMcpBody(absl::string_view body,
                                    const JsonLimits& limits);
Json RequestIdOf(absl::string_view body, const JsonLimits& limits);

// Matches `path` against a template holding one `{name}` segment, e.g.
// "/tools/{name}" or "/api/{name}/invoke". The name is percent-decoded and
// must be non-empty, not "." or "..", and hold no '/', '\', '?', '#',
// '%', ';' or control character (decoded or not: a server that decodes
// twice, or strips path parameters, would read another name). NOT_FOUND
// when the path does not match (a query string or fragment included:
// refuse those first, QueryOrFragment); INVALID_ARGUMENT for a bad
// template.
absl::StatusOr<std::string> MatchToolPath(absl::string_view path_template,
                                          absl::string_view path);

// A REST route's path carries a query string or a fragment ('?' or '#',
// even with nothing after it): toolgate checks the body alone as the
// arguments, so a query the tool server could read is refused
// (query_not_allowed), never forwarded unchecked.
bool QueryOrFragment(absl::string_view path);

}  // namespace mesh
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MESH_MCP_REQUEST_H_
