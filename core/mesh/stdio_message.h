// One JSON-RPC 2.0 message as the stdio gateway (toolgatectl mcp-proxy)
// reads it, in either direction.
//
// MCP's stdio transport carries one JSON-RPC message per line (a request,
// a notification or a response; older revisions also allow a batch, an
// array of them, which the gateway splits before classifying). The kinds
// must never be ambiguous: a message the gateway took for a server request
// (passed through) that a host took for the response to its tools/call
// would reach the model unchecked. So a message is classified only when
// its members are exactly one kind's (MCP's schemas are closed), else it
// is kInvalid:
//   kRequest       jsonrpc "2.0", id, method [, params]
//   kNotification  jsonrpc "2.0", method [, params]
//   kResponse      jsonrpc "2.0", id, and exactly one of result / error
// An id is a string or an integer (MCP: never null, except in an error
// response whose request could not be read); params an object or array.
//
// Thread-safety: pure functions over values.
#ifndef TOOLGATE_CORE_MESH_STDIO_MESSAGE_H_
#define TOOLGATE_CORE_MESH_STDIO_MESSAGE_H_

#include <string>

#include "core/json/strict_json.h"

namespace toolgate {
namespace mesh {

enum class StdioKind { kRequest, kNotification, kResponse, kInvalid };

struct StdioMessage {
  StdioKind kind = StdioKind::kInvalid;
  // The id (null when absent or unusable) and its canonical JSON text, the
  // key requests and responses are matched by ("" when there is none).
  Json id;
  std::string id_key;
  std::string method;  // Requests and notifications.
  // kResponse: a `result` (else an `error`).
  bool has_result = false;
  // kInvalid: not_jsonrpc, invalid_id, invalid_method, invalid_params,
  // ambiguous_message, unexpected_member, invalid_error.
  std::string invalid_reason;
};

StdioMessage ClassifyStdioMessage(const Json& message);

// JSON-RPC's own error codes (the spec's "pre-defined errors").
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;

}  // namespace mesh
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MESH_STDIO_MESSAGE_H_
