// The one MCP decision path: every front end that gates MCP (Envoy's
// ext_authz and ext_proc in server/envoy_*, the stdio gateway in
// client/mcp_proxy/) is a thin adapter from its transport to this, so the
// same MCP message gets the same decision and the same JSON-RPC answer
// through each. docs/architecture.md "The MCP path" has the picture;
// docs/mesh.md the rules.
//
//   request bytes --Read--> McpRequest (parsed once)
//       --Decide / DecideRest--> McpDecision (allowed? the JSON-RPC answer
//                                 of a deny, per id for a batch)
//       --Plan--> AnswerPlan (what the answer is checked as)
//   answer --Check--> AnswerVerdict (valid? the JSON-RPC answer of a
//                     refusal, per id for a batch)
//   one response --CheckResult--> ResultCheck (the stdio gateway)
//
// Decisions come from the McpDecider (mcp_decider.h): the Engine in
// process (engine_decider.h) or toolgate.v1 over gRPC.
//
// A transport without HTTP (the stdio gateway, client/mcp_proxy/
// call_gate.h) uses the same calls: it parses each line once, and a
// host's tools/call message is ReadMessage'd and Decided (McpAsk::source
// "mcp.stdio", McpAsk::mcp_request_id its id); the server's response to a
// forwarded call goes through CheckResult, whose RpcError the gateway
// shapes as it must (an isError tool result for INVALID) from ResultCheck.
//
// Thread-safety: as the decider; the gate itself holds only the decider
// pointer and the limits, so it may be shared when the decider may.
#ifndef TOOLGATE_CORE_MESH_MCP_GATE_H_
#define TOOLGATE_CORE_MESH_MCP_GATE_H_

#include "absl/strings/string_view.h"
#include "core/mesh/answer_plan.h"
#include "core/mesh/mcp_answer.h"
#include "core/mesh/mcp_decide.h"
#include "core/mesh/mcp_decider.h"
#include "core/mesh/mcp_request.h"

namespace toolgate {
namespace mesh {

class McpGate {
 public:
  // `decider` is not owned and must outlive the gate.
  McpGate(McpDecider* decider, const McpLimits& limits)
      : decider_(decider), limits_(limits) {}

  const McpLimits& limits() const { return limits_; }

  // The request body, read once for everything below.
  McpRequest Read(absl::string_view body) const {
    return ReadMcpRequest(body, limits_.json);
  }

  // One message the transport parsed already (the stdio gateway's line).
  McpRequest ReadMessage(const Json& message) const {
    return ReadMcpMessage(message);
  }

  // An MCP route's request: allowed, or the answer of its deny.
  McpDecision Decide(const McpAsk& ask, const McpRequest& request) const {
    return DecideMcpRequest(*decider_, limits_, ask, request);
  }

  // A REST route's call: the path template names the tool, the body is
  // its arguments.
  McpDecision DecideRest(const McpAsk& ask, absl::string_view tool_path,
                         absl::string_view path, absl::string_view body) const {
    return DecideRestCall(*decider_, limits_, ask, tool_path, path, body);
  }

  // What the answer of an allowed request is checked as.
  AnswerPlan Plan(Route route, absl::string_view named_tool,
                  const McpRequest& request) const {
    return PlanAnswer(route, named_tool, request, limits_.max_answer_calls);
  }

  // The whole answer of an allowed request.
  AnswerVerdict Check(const AnswerPlan& plan, const AnswerAsk& ask,
                      const HttpAnswer& answer) const {
    return CheckAnswer(*decider_, limits_, plan, ask, answer);
  }

  // One JSON-RPC response to a tools/call of `tool`.
  ResultCheck CheckResult(const AnswerAsk& ask, absl::string_view tool,
                          const Json& response) const {
    return CheckToolResult(*decider_, ask, tool, response);
  }

 private:
  McpDecider* const decider_;
  const McpLimits limits_;
};

}  // namespace mesh
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MESH_MCP_GATE_H_
