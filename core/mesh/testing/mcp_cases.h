// One table of MCP messages and what every front end of the MCP path
// (core/mesh/mcp_gate.h) must answer them with: the gate itself
// (//core/mesh:gate_test), Envoy's ext_authz and ext_proc
// (//server:envoy_mcp_table_test), and the stdio gateway. Each case is
// message bytes in, the decision and each message's JSON-RPC error out.
//
// The cases are decided against kManifest, stateless (a snapshot, no run).
//
// Thread-safety: constant tables.
#ifndef TOOLGATE_CORE_MESH_TESTING_MCP_CASES_H_
#define TOOLGATE_CORE_MESH_TESTING_MCP_CASES_H_

#include <string>
#include <vector>

#include "core/json/strict_json.h"

namespace toolgate {
namespace mesh {
namespace testing {

// get_customer (read, MCP output {tier: free|pro}), send_note (write, MCP
// output {sent: true}), wire (needs a human's approval), lookup (a REST
// tool answering JSON {tier}).
extern const char kManifest[];
inline constexpr char kSnapshotName[] = "mcp-cases";

// What one message of an answer says: its id (canonical JSON; "" on a
// REST route's {"error": ...}), error code and data.reason.
struct Said {
  std::string id;
  int code = 0;
  std::string reason;
  bool operator==(const Said& o) const {
    return id == o.id && code == o.code && reason == o.reason;
  }
};
// Each error of `answer`: a JSON-RPC error, an array of them, or a REST
// {"error": ...}. An unexpected shape gives one Said with code 0.
std::vector<Said> ErrorsOf(const Json& answer);
std::string ToString(const std::vector<Said>& said);

// Builders of the messages (ids and arguments as JSON text).
namespace msg {
// A tools/call; no id (a notification) when `id` is empty.
std::string Call(const std::string& id, const std::string& tool,
                 const std::string& args);
std::string Result(const std::string& id, const std::string& result);
std::string Batch(const std::vector<std::string>& messages);
// Each message its own event.
std::string Sse(const std::vector<std::string>& messages);
extern const char kCustomer[];   // get_customer's arguments.
extern const char kTo[];         // send_note's.
extern const char kPing[];       // id "p".
extern const char kNote[];       // notifications/progress.
extern const char kGood[];       // get_customer's valid CallToolResult.
extern const char kBad[];        // ... with tier "gold".
extern const char kSent[];       // send_note's valid CallToolResult.
extern const char kToolError[];  // A JSON-RPC error answer for id 2.
// -32042 with `reason`; -32043 invalid_tool_output; `reason` for each id.
Said Deny(const std::string& id, const std::string& reason);
Said Invalid(const std::string& id);
std::vector<Said> Each(const std::vector<std::string>& ids,
                       const std::string& reason);
}  // namespace msg

// A request on an MCP route (ext_authz; the gateway's host line).
struct RequestCase {
  std::string name;
  std::string body;
  bool allowed = false;
  std::string label;        // McpDecision::label (the metrics' value).
  std::vector<Said> errors;  // Denied: one per message, in order.
  int decisions = 0;         // ValidateToolCall calls (a batch: one).
};
const std::vector<RequestCase>& RequestCases();

// An allowed request and its tool's answer (ext_proc; the gateway's
// server line).
struct AnswerCase {
  std::string name;
  std::string request;  // The request body ext_authz allowed.
  std::string route;    // x-toolgate-route: "mcp", "rest", "-" for none.
  std::string tool;     // x-toolgate-tool.
  int status = 200;
  std::string content_type = "application/json";
  std::string content_encoding;  // Content-Encoding; empty: none sent.
  std::string answer;
  // Refused before the request goes on (the plan refuses; no answer).
  bool refused_early = false;
  bool passed = false;
  std::string label;          // VALID INVALID DENIED ERROR PASS_THROUGH.
  std::vector<Said> errors;   // Refused: one per message, in order.
  int outputs_checked = 0;    // ValidateToolOutput calls.
};
const std::vector<AnswerCase>& AnswerCases();

}  // namespace testing
}  // namespace mesh
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MESH_TESTING_MCP_CASES_H_
