// The check of a tool's answer before the model reads it, over an
// McpDecider (ValidateToolOutput, fail-closed mode): what Envoy's ext_proc
// does once it holds an allowed request's whole answer, and what the stdio
// gateway does with each tools/call response. docs/mesh.md has the rules.
//
// By the request's AnswerPlan (answer_plan.h):
//   kCall   HTTP 2xx, then the JSON-RPC response for the call's id
//           (FindToolResponse: JSON or SSE), then its `result` checked.
//   kBatch  HTTP 2xx, then one response per id of the batch
//           (FindBatchResponses: each id exactly once), then every tool
//           call's `result` checked, each one ValidateToolOutput of the run
//           (each INVALID counts toward its kill switch). VALID only when
//           every one is; otherwise the whole answer is refused, each
//           message getting its own error in order (ErrorAnswer): the call
//           whose result was INVALID -32043 with its violations, a tool's
//           error answer tool_error, toolgate failing -32044, and every
//           other message batch_answer_withheld (its tool ran; its answer
//           is withheld because another one of the batch failed). An
//           answer refused as a whole (unreadable, an id missing, extra or
//           answered twice, not HTTP 2xx) gives every message that error.
//   kRest   the raw answer (status, content type, body) checked.
// A JSON-RPC error answer to a tool call is refused (tool_error): toolgate
// cannot check its text. Neither a snapshot nor a run: no_snapshot.
//
// Thread-safety: pure functions over values and the decider.
#ifndef TOOLGATE_CORE_MESH_MCP_ANSWER_H_
#define TOOLGATE_CORE_MESH_MCP_ANSWER_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"
#include "core/mesh/answer_plan.h"
#include "core/mesh/jsonrpc_error.h"
#include "core/mesh/mcp_decider.h"
#include "core/util/cancel.h"

namespace toolgate {
namespace mesh {

// Who the answer is checked for.
struct AnswerAsk {
  std::string snapshot_id;  // "" for the run's pinned one.
  std::string run_id;
  std::string run_token;
  CancelToken cancel;
  std::string source;  // The audit record's source ("envoy_ext_proc").
  // The stdio gateway's JSON-RPC id (canonical JSON) for the audit record.
  std::string mcp_request_id;
};

// A tool's answer as HTTP delivered it.
struct HttpAnswer {
  int status = 0;  // 0 when unknown: not 2xx.
  std::string content_type;
  absl::string_view body;  // Not owned.
  // Content-Encoding as sent (headers sent twice joined by ','); empty
  // when absent. Anything but identity is refused: the client would
  // decode bytes toolgate never read.
  std::string content_encoding;
};

// The check of one response (or one raw REST answer).
struct ResultCheck {
  bool valid = false;
  // Not valid: the error the agent gets for this call.
  std::optional<RpcError> error;
  // VALID / INVALID as the decider judged it, ERROR when it failed, DENIED
  // when nothing could be checked (tool_error). A constant.
  absl::string_view label = "DENIED";
  std::vector<std::string> violations;  // Codes, for the metrics.
  bool read_only = false;               // The run's kill switch is on.
};

// A JSON-RPC response to a tools/call of `tool` (exactly jsonrpc, id and
// result or error; the stdio gateway reads it from its line).
ResultCheck CheckToolResult(McpDecider& decider, const AnswerAsk& ask,
                            absl::string_view tool, const Json& response);

struct AnswerVerdict {
  bool valid = false;  // The answer may go on.
  // Not valid: what the agent gets instead (AnswerPlan::Refusal's shape,
  // a batch's errors per message).
  Json answer;
  // One of VALID, INVALID, ERROR, DENIED (nothing checked); a batch's is
  // the worst of its calls' (ERROR, INVALID, DENIED, VALID). A constant.
  absl::string_view label = "DENIED";
  std::vector<std::string> violations;
  bool read_only = false;
  bool checked = false;  // At least one ValidateToolOutput answered.
};

AnswerVerdict CheckAnswer(McpDecider& decider, const McpLimits& limits,
                          const AnswerPlan& plan, const AnswerAsk& ask,
                          const HttpAnswer& answer);

}  // namespace mesh
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MESH_MCP_ANSWER_H_
