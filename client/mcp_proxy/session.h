// One MCP session through the stdio gateway: what happens to each line the
// host or the server sends (toolgatectl mcp-proxy; docs/gateway.md).
//
//   host -> server  tools/call: decided by the MCP path (core/mesh's
//                   McpGate, the one Envoy's hook runs) over the sidecar
//                   (Sidecar::DecideCall); ALLOW forwards the message as
//                   decided (canonical JSON), anything else answers the
//                   host with the path's error and the server never sees
//                   it. Everything else is forwarded byte for byte.
//   server -> host  the answer to a forwarded tools/call is checked by the
//                   same path (Sidecar::CheckResult) before the host reads
//                   it;
//                   tools/list answers are compared with the pinned tools
//                   (rug pulls); an answer to a request the server never
//                   got is dropped. Everything else byte for byte.
// Tools are pinned from the proxy's own tools/list (all pages), sent once
// the host's initialize handshake is done and again after
// notifications/tools/list_changed: its ids are strings with a random
// prefix the host cannot know and never reach the host. tools/calls wait
// while the tools are being (re)read.
//
// Lines that are not JSON, not JSON-RPC, over the size limit, or a
// tools/call whose params cannot be read get JSON-RPC's own errors
// (-32700, -32600, -32602) back to the peer that sent them and are never
// forwarded. A batch is split; each message goes its own way.
//
// Thread-compatible: every method runs on the relay's thread; sidecar RPCs
// run through the Executor, whose completions come back to that thread.
#ifndef TOOLGATE_CLIENT_MCP_PROXY_SESSION_H_
#define TOOLGATE_CLIENT_MCP_PROXY_SESSION_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "client/mcp_proxy/sidecar.h"
#include "core/json/strict_json.h"
#include "core/mesh/jsonrpc_error.h"
#include "core/mesh/stdio_message.h"
#include "core/mesh/tool_pins.h"

namespace toolgate {
namespace mcp_proxy {

// Where the session's output goes (the relay's buffers).
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void ToHost(absl::string_view line) = 0;
  // `advisory`: an error answer to a line the server sent, which the relay
  // may drop when the server does not read (a flood is not echoed back).
  virtual void ToServer(absl::string_view line, bool advisory) = 0;
  virtual void Log(absl::string_view text) = 0;
};

// Runs sidecar work off the relay's thread.
class Executor {
 public:
  using Completion = std::function<void()>;
  using Task = std::function<Completion()>;
  virtual ~Executor() = default;
  // `task` runs on another thread; the Completion it returns runs later on
  // the relay's thread. False when no more work can be taken.
  virtual bool Post(Task task) = 0;
};

struct SessionOptions {
  size_t max_message_bytes = size_t{4} << 20;
  bool hide_refused_tools = false;
  bool accept_tool_changes = false;
  // How long the server may take to answer the proxy's tools/list.
  absl::Duration list_timeout = absl::Seconds(30);
  // Host requests the server has not answered yet, and tools/calls
  // waiting for a decision or for the tools: past these, refused.
  size_t max_outstanding = 1024;
  size_t max_waiting_calls = 256;
  // The prefix of the proxy's own request ids (random per session).
  std::string own_id_prefix;
};

class Session {
 public:
  Session(SessionOptions options, const Sidecar* sidecar, Executor* executor,
          Sink* sink);
  ~Session();

  void FromHost(absl::string_view line);
  void FromServer(absl::string_view line);
  void HostLineTooLong();
  void ServerLineTooLong();
  // Ends what waited too long (the proxy's own tools/list).
  void Tick(absl::Time now);
  // When Tick next has something to do.
  std::optional<absl::Time> NextDeadline() const;
  // The run to close at exit, if any.
  std::optional<RunRef> run() const { return run_; }
  // Bytes of server answers held while the sidecar checks them: the relay
  // stops reading the server past a limit, so a server cannot make the
  // proxy hold more than that however fast it answers.
  size_t checking_bytes() const { return checking_bytes_; }

 private:
  struct Call {  // A host tools/call.
    Json id;
    std::string id_key;
    Json params;  // Object; "name" a string, "arguments" present.
  };
  struct Outstanding {  // A host request forwarded to the server.
    std::string method;
    std::string tool;   // tools/call.
    RunRef run;         // tools/call: the run that allowed it.
    bool page = false;  // tools/list with a cursor: one page of many.
  };
  struct Refusal {
    std::string reason;  // tool_definition_changed, tool_not_pinned.
    std::string change;  // changed, added, removed ("" for not pinned).
    std::string detail;
  };
  struct Refresh {  // The proxy's own tools/list, page by page.
    std::string id_key;
    absl::Time deadline;
    std::vector<Json> tools;
    size_t pages = 0;
  };
  enum class Dir { kFromHost, kFromServer };

  // session.cc: reading and routing.
  void Read(Dir dir, absl::string_view line);
  void Route(Dir dir, const Json& message, absl::string_view line);
  void Reply(Dir dir, const Json& id, const mesh::RpcError& error);
  void Junk(absl::string_view what);
  void HostRequest(const mesh::StdioMessage& m, const Json& message,
                   absl::string_view line);
  void HostNotification(const mesh::StdioMessage& m, const Json& message,
                        absl::string_view line);
  void ServerResponse(const mesh::StdioMessage& m, const Json& message,
                      absl::string_view line);
  void ServerMessage(const mesh::StdioMessage& m, absl::string_view line);
  void Cancel(const Json& message, absl::string_view line);
  bool IdInUse(const std::string& id_key) const;

  // session_calls.cc: tools/calls and their results.
  void ToolCall(const mesh::StdioMessage& m, const Json& message);
  void Decide(Call call);
  void Decided(const Call& call, const std::string& call_key,
               const RunRef& run, CallVerdict verdict);
  void Forward(const Json& id, const std::string& id_key,
               const std::string& tool, const RunRef& run,
               const std::string& line);
  void CheckResult(const Outstanding& call, const mesh::StdioMessage& m,
                   const Json& message, absl::string_view line);
  void RememberApproval(const std::string& call_key, const std::string& id);
  void ForgetApproval(const std::string& call_key);
  bool Refused(const std::string& tool, const Json& id);

  // session_tools.cc: pins, refreshes, tools/list answers.
  void ToolsListAnswer(const Outstanding& request, const Json& message,
                       absl::string_view line);
  void ToolsListChanged();
  void StartRefresh();
  void RequestPage(const std::optional<std::string>& cursor);
  void OwnAnswer(const mesh::StdioMessage& m, const Json& message);
  void RefreshDone(std::vector<Json> tools);
  void Pin(std::vector<Json> tools);
  void Pinned(std::vector<Json> tools, absl::StatusOr<mcp_proxy::Pinned> pin);
  void RefreshFailed(const std::string& why);
  void ViewSettled();
  void MarkRefused(const std::vector<mesh::ToolDiff>& diffs);
  bool IsOwnId(const std::string& id_key) const;

  const SessionOptions options_;
  const Sidecar* const sidecar_;
  Executor* const executor_;
  Sink* const sink_;

  std::optional<RunRef> run_;
  mesh::ToolPins pins_;
  absl::flat_hash_map<std::string, Refusal> refused_;
  // Calls wait until the tools were read: at start, after list_changed,
  // after a failed read.
  bool need_view_ = true;
  bool server_has_tools_ = false;
  std::optional<Refresh> refresh_;
  bool refresh_again_ = false;  // list_changed during a refresh.
  uint64_t own_ids_ = 0;
  std::string initialize_id_;  // The host's initialize request.

  absl::flat_hash_map<std::string, Outstanding> outstanding_;
  // tools/calls being decided; true once the host cancelled it.
  absl::flat_hash_map<std::string, bool> deciding_;
  std::deque<Call> waiting_;  // For the tools to be read.
  // ALLOWed calls that came back while the tools were being read again.
  struct Parked {
    Json id;
    std::string id_key, tool, line;
    RunRef run;
  };
  std::deque<Parked> parked_;
  // tools/list answers that came before the first pin.
  std::vector<std::pair<Outstanding, std::string>> early_lists_;
  // Approvals awaited, by call (tool + arguments), oldest first.
  std::map<std::string, std::string> approvals_;
  std::deque<std::string> approval_order_;
  size_t logged_junk_ = 0;
  size_t checking_bytes_ = 0;
};

}  // namespace mcp_proxy
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_MCP_PROXY_SESSION_H_
