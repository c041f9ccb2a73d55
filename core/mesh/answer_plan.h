// What the answer of an allowed request is checked as, decided from the
// request alone, before any answer arrives (Envoy ext_proc reads the
// request first; the stdio gateway knows what it forwarded).
//
// The route kind says how the tool server answers: ext_authz sets it on
// every request it allows (x-toolgate-route, overwriting what the client
// sent), so ext_proc never guesses it from a body a client wrote:
//   kMcp     JSON-RPC: one tools/call (the tool ext_authz named) is
//            answered by its JSON-RPC response; a batch holding tools/call
//            messages (no tool named) by one response per id; requests
//            running no tool (lifecycle and read methods) go unchecked.
//            Anything else ext_authz would not have allowed is refused.
//   kRest    the named tool's raw answer (status, content type, body),
//            whatever the body looks like (a REST body may look like any
//            JSON-RPC message, a tools/call of the same tool included).
//   kUnnamed no route kind given (ext_proc without toolgate's ext_authz in
//            front: not a supported layout): inferred as before the route
//            kind existed, never looser: a tools/call of the named tool
//            (or of any tool, with none named) is MCP; anything else with
//            a tool named is REST; a batch holding tools/call messages is
//            checked only when no tool is named (else batch_not_checked).
//   kInvalid any other value: refused.
//
// Thread-safety: values.
#ifndef TOOLGATE_CORE_MESH_ANSWER_PLAN_H_
#define TOOLGATE_CORE_MESH_ANSWER_PLAN_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"
#include "core/mesh/jsonrpc_error.h"
#include "core/mesh/mcp_request.h"

namespace toolgate {
namespace mesh {

enum class Route { kUnnamed, kMcp, kRest, kInvalid };

// x-toolgate-route: "mcp", "rest", absent (kUnnamed), else kInvalid.
Route ReadRoute(const std::optional<std::string>& header);
// The header's value for a route ("mcp" or "rest").
absl::string_view RouteName(bool rest);

struct AnswerPlan {
  enum class Kind {
    kPass,    // Not a tool call: the answer goes on unchecked.
    kCall,    // One tools/call: the JSON-RPC response for `id`.
    kBatch,   // A batch's tool calls: one response per id of `body`.
    kRest,    // The tool's raw answer.
    kRefuse,  // Refused whatever the answer: `refusal`.
  };
  // Fail closed: a plan nobody made refuses.
  Kind kind = Kind::kRefuse;
  RpcError refusal =
      DeniedError("stream_fault", "the request was not read before its answer");
  std::string tool;  // kCall, kRest.
  Json id;           // kCall.
  McpBody body;      // kBatch: the request's messages.

  // Whether an answer must come and be checked.
  bool checked() const { return kind != Kind::kPass; }

  // The body of a refusal in the shape the agent's client reads: a JSON-RPC
  // error for the call's id; for a batch, one error per message in order
  // (JsonRpcBatchErrors); on REST routes {"error": ...}; otherwise a
  // JSON-RPC error with a null id.
  Json Refusal(const RpcError& error) const;
};

// The plan for `request`, allowed with `named_tool` (x-toolgate-tool: the
// single call's tool, "" for a batch or a request running none). A batch's
// plan refuses (before the request goes on, so nothing runs) a batch of
// more than `max_calls` tool calls (too_many_calls) and a tools/call
// without an id (batch_not_checked: nothing could answer it).
AnswerPlan PlanAnswer(Route route, absl::string_view named_tool,
                      const McpRequest& request, size_t max_calls);

}  // namespace mesh
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MESH_ANSWER_PLAN_H_
