#include "core/mesh/answer_plan.h"

#include <utility>
#include <vector>

#include "core/mesh/mcp_turn.h"

namespace toolgate {
namespace mesh {
namespace {

using Kind = AnswerPlan::Kind;

AnswerPlan Refused(absl::string_view reason, absl::string_view why) {
  AnswerPlan plan;
  plan.kind = Kind::kRefuse;
  plan.refusal = DeniedError(reason, why);
  return plan;
}

AnswerPlan NotAllowed() {
  return Refused("stream_fault",
                 "the request is not one ext_authz allows with this tool "
                 "and route (x-toolgate-tool, x-toolgate-route)");
}

AnswerPlan Make(Kind kind, std::string tool = "", Json id = nullptr) {
  AnswerPlan plan;
  plan.kind = kind;
  plan.tool = std::move(tool);
  plan.id = std::move(id);
  return plan;
}

size_t CountCalls(const McpBody& body, bool* any_denied) {
  size_t calls = 0;
  for (const McpMessage& m : body.messages) {
    calls += m.kind == McpKind::kToolCall ? 1 : 0;
    *any_denied = *any_denied || m.kind == McpKind::kDeny;
  }
  return calls;
}

// A batch's answers can be checked only when each call has an id to be
// answered by, and their number is bounded.
AnswerPlan Batch(McpBody body, size_t calls, size_t max_calls) {
  if (calls > max_calls) {
    return Refused("too_many_calls",
                   "the batch holds more tool calls than one answer is "
                   "checked for");
  }
  for (const McpMessage& m : body.messages) {
    if (m.kind == McpKind::kToolCall && m.id.is_null()) {
      return Refused("batch_not_checked",
                     "a tools/call without an id in a batch: no answer to "
                     "it could be checked");
    }
  }
  AnswerPlan plan = Make(Kind::kBatch);
  plan.body = std::move(body);
  return plan;
}

// Route kMcp: exactly what ext_authz allows on an MCP route, or refused.
AnswerPlan PlanMcp(absl::string_view named, const McpRequest& request,
                   size_t max_calls) {
  if (request.empty) return named.empty() ? Make(Kind::kPass) : NotAllowed();
  if (!request.status.ok()) return NotAllowed();
  bool any_denied = false;
  const size_t calls = CountCalls(request.body, &any_denied);
  if (any_denied) return NotAllowed();
  if (calls == 0) return named.empty() ? Make(Kind::kPass) : NotAllowed();
  if (request.body.batch) {
    return named.empty() ? Batch(request.body, calls, max_calls) : NotAllowed();
  }
  const McpMessage& call = request.body.messages[0];
  if (named.empty() || call.tool != named) return NotAllowed();
  return Make(Kind::kCall, call.tool, call.id);
}

// No route kind: as ext_proc read requests before there was one.
AnswerPlan PlanUnnamed(absl::string_view named, const McpRequest& request,
                       size_t max_calls) {
  const bool read = !request.empty && request.status.ok();
  bool any_denied = false;
  const size_t calls = read ? CountCalls(request.body, &any_denied) : 0;
  // A message ext_authz would have denied (a call it could not read, a
  // duplicate id, ...) runs nothing toolgate checked: never pass its answer.
  if (any_denied && named.empty()) return NotAllowed();
  if (read && request.body.batch && calls > 0) {
    if (!named.empty()) {
      return Refused("batch_not_checked",
                     "a batch of tool calls under a tool's name: its "
                     "answers are not checked");
    }
    return any_denied ? NotAllowed() : Batch(request.body, calls, max_calls);
  }
  const McpMessage* call = read && !request.body.batch && calls == 1
                               ? &request.body.messages[0]
                               : nullptr;
  if (call != nullptr && (named.empty() || named == call->tool)) {
    return Make(Kind::kCall, call->tool, call->id);
  }
  if (!named.empty()) return Make(Kind::kRest, std::string(named));
  return Make(Kind::kPass);
}

}  // namespace

Route ReadRoute(const std::optional<std::string>& header) {
  if (!header.has_value()) return Route::kUnnamed;
  if (*header == "mcp") return Route::kMcp;
  if (*header == "rest") return Route::kRest;
  return Route::kInvalid;
}

absl::string_view RouteName(bool rest) { return rest ? "rest" : "mcp"; }

AnswerPlan PlanAnswer(Route route, absl::string_view named_tool,
                      const McpRequest& request, size_t max_calls) {
  switch (route) {
    case Route::kMcp:
      return PlanMcp(named_tool, request, max_calls);
    case Route::kRest:
      if (named_tool.empty()) return NotAllowed();
      return Make(Kind::kRest, std::string(named_tool));
    case Route::kUnnamed:
      return PlanUnnamed(named_tool, request, max_calls);
    case Route::kInvalid:
      break;
  }
  return Refused("stream_fault",
                 "x-toolgate-route is neither mcp nor rest (ext_authz sets "
                 "it on every request it allows)");
}

Json AnswerPlan::Refusal(const RpcError& error) const {
  switch (kind) {
    case Kind::kRest:
      return {{"error", ErrorObject(error)}};
    case Kind::kBatch:
      return ErrorAnswer(body, {}, error);
    case Kind::kCall:
      return {{"jsonrpc", "2.0"}, {"id", id}, {"error", ErrorObject(error)}};
    case Kind::kPass:
    case Kind::kRefuse:
      break;
  }
  return {{"jsonrpc", "2.0"}, {"id", nullptr}, {"error", ErrorObject(error)}};
}

}  // namespace mesh
}  // namespace toolgate
