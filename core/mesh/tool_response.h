// The answer of an MCP `tools/call`, as the mesh hook (Envoy ext_proc)
// reads it before the model does.
//
// Streamable HTTP answers a POST with either `application/json` (one
// JSON-RPC response) or `text/event-stream`, whose events' `data:` lines
// carry JSON-RPC messages (read by core/mesh/sse_reader.h, which refuses
// any body some common client would read otherwise). FindToolResponse
// returns the one response whose id is the request's (exactly jsonrpc,
// id and result or error); server notifications (a method, no id) may
// come before or after it in the stream. Anything else is refused as a
// whole, so no unchecked text reaches the model: a second response, a
// server request, an unparsable event, no response for the id, another
// content type or a charset other than UTF-8, a body over the JSON
// limits' max_bytes (body_too_large).
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

// INVALID_ARGUMENT with a snake_case reason in the message's first word
// (unsupported_content_type, body_too_large, unreadable_response,
// no_response, unexpected_message) when the body is not exactly what is
// described above.
absl::StatusOr<Json> FindToolResponse(absl::string_view content_type,
                                      absl::string_view body, const Json& id,
                                      const JsonLimits& limits);

// The responses to a batch's requests: `out[k]` answers `ids[k]` (the ids
// of the batch's messages that expect an answer). application/json holds
// an array of responses, or the one response when one id is expected (the
// MCP TypeScript SDK's server answers a batch holding one request so);
// text/event-stream holds one message per event: the responses and
// notifications between them. Every response is exactly jsonrpc, id and
// one of result and error. Each id is answered exactly once, and ids
// compare as JSON values (1 and "1" differ): a missing id is no_response;
// a response to an id the batch did not send, a second one to the same
// id, a server request, a notification in a JSON answer or anything else
// is unexpected_message. Content type, size and SSE as FindToolResponse.
absl::StatusOr<std::vector<Json>> FindBatchResponses(
    absl::string_view content_type, absl::string_view body,
    const std::vector<Json>& ids, const JsonLimits& limits);

// The canonical JSON of the response's `result`; INVALID_ARGUMENT
// "tool_error ..." for an error answer or one without a result.
absl::StatusOr<std::string> ToolResultBody(const Json& response);

}  // namespace mesh
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MESH_TOOL_RESPONSE_H_
