// The answer of an MCP `tools/call`, as the mesh hook (Envoy ext_proc)
// reads it before the model does.
//
// Streamable HTTP answers a POST with either `application/json` (one
// JSON-RPC response) or `text/event-stream`, whose events' `data:` lines
// carry JSON-RPC messages. FindToolResponse returns the one response
// whose id is the request's; server notifications (a method, no id) may
// come before it in the stream. Anything else is refused as a whole, so
// no unchecked text reaches the model: a second response, a server
// request, an unparsable event, no response for the id, another content
// type.
//
// ToolResultBody then gives what ValidateToolOutput checks: the canonical
// JSON of `result` (an MCP CallToolResult). A JSON-RPC `error` answer is
// refused (reason tool_error): toolgate cannot check its text.
//
// Thread-safety: pure functions over values.
#ifndef TOOLGATE_CORE_MESH_TOOL_RESPONSE_H_
#define TOOLGATE_CORE_MESH_TOOL_RESPONSE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"

namespace toolgate {
namespace mesh {

// The `data` of each event of a text/event-stream body, in order (data
// lines joined by "\n"; events without data skipped). Lines may end in
// "\n", "\r\n" or "\r".
std::vector<std::string> SseEventData(absl::string_view body);

// INVALID_ARGUMENT with a snake_case reason in the message's first word
// (unsupported_content_type, unreadable_response, no_response,
// unexpected_message) when the body is not exactly what is described above.
absl::StatusOr<Json> FindToolResponse(absl::string_view content_type,
                                      absl::string_view body, const Json& id,
                                      const JsonLimits& limits);

// The canonical JSON of the response's `result`; INVALID_ARGUMENT
// "tool_error ..." for an error answer or one without a result.
absl::StatusOr<std::string> ToolResultBody(const Json& response);

}  // namespace mesh
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MESH_TOOL_RESPONSE_H_
