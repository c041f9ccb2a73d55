// The JSON-RPC error an agent's MCP client receives when the mesh denies a
// call or a tool's answer, so the model reads why and can fix it.
//
// Codes (JSON-RPC reserves -32000..-32099 for servers; toolgate's sit at
// -3204x, away from the ones MCP servers commonly use):
//   -32602  kInvalidParams        REJECT: violations, repair_prompt,
//                                 attempts_left in error.data
//   -32040  kNeedsApprovalCode    NEEDS_APPROVAL: approval_id, message
//   -32041  kStopCode             STOP: stop_reason (run breaker, kill
//                                 switch, approval denied, ...)
//   -32042  kDeniedCode           not a call toolgate lets through: method
//                                 not allowed, unreadable/partial body,
//                                 no snapshot, bad run credentials
//   -32043  kOutputInvalidCode    (ext_proc) the tool's answer failed
//                                 ValidateToolOutput; violations in data
//   -32044  kUnavailableCode      toolgate could not decide (overload,
//                                 internal error): denied, retry later
// error.data always holds "decision" (REJECT, NEEDS_APPROVAL, STOP, DENY,
// INVALID, UNAVAILABLE), "reason" (a snake_case code) and, when a
// decision was recorded, "audit_id".
//
// Thread-safety: pure functions over values.
#ifndef TOOLGATE_CORE_MESH_JSONRPC_ERROR_H_
#define TOOLGATE_CORE_MESH_JSONRPC_ERROR_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"
#include "core/pipeline/api.h"

namespace toolgate {
namespace mesh {

inline constexpr int kInvalidParams = -32602;
inline constexpr int kNeedsApprovalCode = -32040;
inline constexpr int kStopCode = -32041;
inline constexpr int kDeniedCode = -32042;
inline constexpr int kOutputInvalidCode = -32043;
inline constexpr int kUnavailableCode = -32044;

struct RpcError {
  int code = kDeniedCode;
  std::string message;
  Json data = Json::object();
};

// For a decision other than ALLOW (REJECT, NEEDS_APPROVAL, STOP).
RpcError ErrorForDecision(const ValidateCallResponse& response);

// For an INVALID tool output.
RpcError ErrorForOutput(const ValidateOutputResponse& response);

// A request denied before any decision: `reason` is a snake_case code.
RpcError DeniedError(absl::string_view reason, absl::string_view message);

// toolgate could not decide: a deny the client may retry.
RpcError UnavailableError(absl::string_view message);

// An engine error as the deny an agent sees: the caller's mistakes
// (unknown or closed run, wrong token, snapshot mismatch: INVALID_ARGUMENT,
// NOT_FOUND, PERMISSION_DENIED, UNAUTHENTICATED, FAILED_PRECONDITION) are
// run_rejected; everything else is UNAVAILABLE (toolgate failing).
RpcError ErrorForEngineStatus(const absl::Status& status);

// {"jsonrpc":"2.0","id":<id>,"error":{code,message,data}} as canonical
// JSON. `id` null when the request had none or could not be read.
std::string JsonRpcErrorBody(const Json& id, const RpcError& error);

// The error object alone (REST routes answer {"error": <this>}).
Json ErrorObject(const RpcError& error);

}  // namespace mesh
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MESH_JSONRPC_ERROR_H_
