// A body's tools/call messages as ONE engine output. An MCP client's
// JSON-RPC batch is one turn of its agent: its calls are decided together
// by the engine's own stages (policy.parallel, one approval per turn, call
// budgets all or none, the breaker counting one attempt), exactly as a
// native output holding several calls is, never call by call.
//
// The output: with one tools/call, its params as they are (native MCP
// params, as ever). With several, an Anthropic assistant message holding
// one tool_use block per call, in order, made of what the native reader
// read from each call's params (ReadNativeCalls: the reader a single call
// goes through, its checks for calls it would leave unchecked included).
// When a call's params do not read cleanly as one MCP call, the output is
// those params alone: the engine refuses them (REJECT with the reader's
// own violation), spending nothing, and the batch's other messages are
// batch_denied.
//
// Thread-safety: pure functions over values.
#ifndef TOOLGATE_CORE_MESH_MCP_TURN_H_
#define TOOLGATE_CORE_MESH_MCP_TURN_H_

#include <optional>
#include <string>
#include <vector>

#include "core/json/strict_json.h"
#include "core/mesh/jsonrpc_error.h"
#include "core/mesh/mcp_request.h"
#include "core/pipeline/api.h"

namespace toolgate {
namespace mesh {

struct McpTurn {
  // The tools/call messages, as indexes into McpBody::messages, in order:
  // call k of the output is message calls[k].
  std::vector<size_t> calls;
  // The native output ValidateToolCall decides; empty when no call.
  std::string output;
  // When set, `output` is call k's params alone (k = *unreadable), which
  // the native reader refuses: the turn cannot be ALLOWed.
  std::optional<size_t> unreadable;
};

McpTurn BuildTurn(const McpBody& body, const JsonLimits& limits);

// Whether an ALLOW decided exactly the calls the tool server will get: one
// per tools/call message, each its name and its canonical arguments.
bool DecidedAsSent(const McpBody& body, const McpTurn& turn,
                   const ValidateCallResponse& decided);

// The error of a message toolgate does not let through (kDeny), else
// nullopt.
std::optional<RpcError> RefusedMessage(const McpMessage& message);

// Each message's error when the turn was not ALLOWed: a call gets the
// turn's decision with its own violations (and those of the whole turn);
// under NEEDS_APPROVAL, the calls whose tool needs it
// (`needs_approval[k]` for call k; every call when none is marked); a
// turn-wide STOP or refusal without a call's violation, every call. The
// rest nullopt (batch_denied).
std::vector<std::optional<RpcError>> TurnErrors(
    const McpBody& body, const McpTurn& turn,
    const ValidateCallResponse& decided,
    const std::vector<bool>& needs_approval);

// `error` for every tools/call message, nullopt for the others.
std::vector<std::optional<RpcError>> CallErrors(const McpBody& body,
                                                const RpcError& error);

// What a denied body answers: one message's JSON-RPC error, or for a batch
// one error per message in order (each id gets its answer), batch_denied
// where `errors` holds none.
Json DeniedAnswer(const McpBody& body,
                  const std::vector<std::optional<RpcError>>& errors);

// As DeniedAnswer, with `otherwise` where `errors` holds none.
Json ErrorAnswer(const McpBody& body,
                 const std::vector<std::optional<RpcError>>& errors,
                 const RpcError& otherwise);

}  // namespace mesh
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MESH_MCP_TURN_H_
