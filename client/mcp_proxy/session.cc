#include "client/mcp_proxy/session.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "client/mcp_proxy/answers.h"

namespace toolgate {
namespace mcp_proxy {
namespace {

// What the server's junk costs in log lines before the proxy stops
// telling (a flood must not become a flood on stderr).
constexpr size_t kMaxJunkLogs = 20;

}  // namespace

Session::Session(SessionOptions options, const Sidecar* sidecar,
                 Executor* executor, Sink* sink)
    : options_(std::move(options)),
      sidecar_(sidecar),
      executor_(executor),
      sink_(sink) {}

Session::~Session() = default;

void Session::FromHost(absl::string_view line) { Read(Dir::kFromHost, line); }

void Session::FromServer(absl::string_view line) {
  Read(Dir::kFromServer, line);
}

void Session::HostLineTooLong() {
  Reply(Dir::kFromHost, nullptr,
        ProtocolError(mesh::kInvalidRequest, "message_too_large",
                      "the message is longer than --max_message_bytes"));
}

void Session::ServerLineTooLong() {
  Junk("the server sent a message longer than --max_message_bytes");
  Reply(Dir::kFromServer, nullptr,
        ProtocolError(mesh::kInvalidRequest, "message_too_large",
                      "the message is longer than --max_message_bytes"));
}

void Session::Junk(absl::string_view what) {
  if (++logged_junk_ > kMaxJunkLogs) return;
  sink_->Log(absl::StrCat(what, "; dropped (not forwarded)",
                          logged_junk_ == kMaxJunkLogs
                              ? " (further drops are not logged)"
                              : ""));
}

void Session::Read(Dir dir, absl::string_view line) {
  // A blank line holds no message: nothing to forward or answer.
  if (absl::StripAsciiWhitespace(line).empty()) return;
  absl::StatusOr<Json> parsed =
      ParseStrictJson(line, JsonLimits{options_.max_message_bytes, 256});
  if (!parsed.ok()) {
    if (dir == Dir::kFromServer) {
      // A flood of junk costs one constant answer per line, no more.
      static const std::string* const kAnswer = new std::string(ErrorLine(
          nullptr, ProtocolError(mesh::kParseError, "invalid_json", "")));
      Junk("the server sent a line that is not JSON");
      sink_->ToServer(*kAnswer, /*advisory=*/true);
      return;
    }
    Reply(dir, nullptr,
          ProtocolError(mesh::kParseError, JsonErrorCode(parsed.status()),
                        parsed.status().message()));
    return;
  }
  if (!parsed->is_array()) {
    Route(dir, *parsed, line);
    return;
  }
  if (parsed->empty()) {
    Reply(dir, nullptr,
          ProtocolError(mesh::kInvalidRequest, "empty_batch", "empty batch"));
    return;
  }
  // A batch is split: each message is decided and forwarded on its own.
  for (const Json& message : *parsed) {
    Route(dir, message, CanonicalJson(message));
  }
}

void Session::Route(Dir dir, const Json& message, absl::string_view line) {
  const mesh::StdioMessage m = mesh::ClassifyStdioMessage(message);
  if (m.kind == mesh::StdioKind::kInvalid) {
    if (dir == Dir::kFromServer) {
      Junk(absl::StrCat("the server sent an unreadable message (",
                        m.invalid_reason, ")"));
    }
    // Params that are neither an object nor an array cannot be read as a
    // method's parameters: JSON-RPC's invalid params.
    const bool params = m.invalid_reason == "invalid_params";
    Reply(dir, m.id,
          ProtocolError(params ? mesh::kInvalidParams : mesh::kInvalidRequest,
                        m.invalid_reason,
                        params ? "params must be an object"
                               : "not a JSON-RPC 2.0 message MCP defines"));
    return;
  }
  if (dir == Dir::kFromServer) {
    if (m.kind == mesh::StdioKind::kResponse) {
      ServerResponse(m, message, line);
    } else {
      ServerMessage(m, line);
    }
    return;
  }
  switch (m.kind) {
    case mesh::StdioKind::kRequest:
      HostRequest(m, message, line);
      return;
    case mesh::StdioKind::kNotification:
      HostNotification(m, message, line);
      return;
    default:  // The host answering a server request.
      sink_->ToServer(line, false);
  }
}

void Session::Reply(Dir dir, const Json& id, const mesh::RpcError& error) {
  if (dir == Dir::kFromHost) {
    sink_->ToHost(ErrorLine(id, error));
  } else {
    sink_->ToServer(ErrorLine(id, error), /*advisory=*/true);
  }
}

bool Session::IdInUse(const std::string& id_key) const {
  if (outstanding_.contains(id_key) || deciding_.contains(id_key) ||
      IsOwnId(id_key)) {
    return true;
  }
  for (const Call& c : waiting_) {
    if (c.id_key == id_key) return true;
  }
  for (const Parked& p : parked_) {
    if (p.id_key == id_key) return true;
  }
  return false;
}

void Session::HostRequest(const mesh::StdioMessage& m, const Json& message,
                          absl::string_view line) {
  if (m.method == "tools/call") {
    ToolCall(m, message);
    return;
  }
  // The server's answer is matched by id: two open requests with one id
  // would leave it ambiguous which one it answers.
  if (IdInUse(m.id_key)) {
    Reply(Dir::kFromHost, m.id,
          ProtocolError(mesh::kInvalidRequest, "duplicate_id",
                        "a request with this id is still open"));
    return;
  }
  if (outstanding_.size() >= options_.max_outstanding) {
    Reply(Dir::kFromHost, m.id,
          mesh::UnavailableError("too many requests are open"));
    return;
  }
  Outstanding o;
  o.method = m.method;
  auto params = message.find("params");
  o.page = m.method == "tools/list" && params != message.end() &&
           params->is_object() && params->contains("cursor");
  if (m.method == "initialize") initialize_id_ = m.id_key;
  outstanding_.emplace(m.id_key, std::move(o));
  sink_->ToServer(line, false);
}

void Session::HostNotification(const mesh::StdioMessage& m,
                               const Json& message, absl::string_view line) {
  if (m.method == "notifications/cancelled") {
    Cancel(message, line);
    return;
  }
  if (m.method == "tools/call") {
    // A call without an id would run and never be answered: no decision
    // could be shown to the host, so it is not sent at all.
    sink_->Log("dropped a tools/call without an id (a notification)");
    return;
  }
  sink_->ToServer(line, false);
  if (m.method == "notifications/initialized" && server_has_tools_ &&
      need_view_ && !refresh_.has_value()) {
    StartRefresh();
  }
}

// A cancellation reaches the server only for a request the server has:
// one the proxy is still deciding, holding or refused never got there.
void Session::Cancel(const Json& message, absl::string_view line) {
  auto params = message.find("params");
  if (params == message.end() || !params->is_object() ||
      !params->contains("requestId")) {
    sink_->ToServer(line, false);  // Not about a request: the server's.
    return;
  }
  const std::string key = CanonicalJson((*params)["requestId"]);
  if (auto it = deciding_.find(key); it != deciding_.end()) {
    it->second = true;
    return;
  }
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
    if (it->id_key == key) {
      waiting_.erase(it);
      return;
    }
  }
  for (auto it = parked_.begin(); it != parked_.end(); ++it) {
    if (it->id_key == key) {
      parked_.erase(it);
      return;
    }
  }
  if (outstanding_.contains(key)) sink_->ToServer(line, false);
}

void Session::ServerResponse(const mesh::StdioMessage& m, const Json& message,
                             absl::string_view line) {
  if (m.id_key.empty()) {
    Junk("the server sent an error response without an id");
    return;
  }
  if (IsOwnId(m.id_key)) {
    OwnAnswer(m, message);
    return;
  }
  auto it = outstanding_.find(m.id_key);
  if (it == outstanding_.end()) {
    // Never forwarded (refused, still being decided), or answered already:
    // whatever it says, the host must not take it for an answer.
    Junk(absl::StrCat("the server answered id ", m.id_key,
                      ", which it was not asked (or answered already)"));
    return;
  }
  Outstanding request = std::move(it->second);
  outstanding_.erase(it);
  if (request.method == "tools/call") {
    CheckResult(request, m, message, line);
    return;
  }
  if (request.method == "tools/list" && m.has_result) {
    ToolsListAnswer(request, message, line);
    return;
  }
  if (m.id_key == initialize_id_ && m.has_result) {
    const Json& result = message["result"];
    auto caps = result.is_object() ? result.find("capabilities") : result.end();
    server_has_tools_ = result.is_object() && caps != result.end() &&
                        caps->is_object() && caps->contains("tools");
  }
  sink_->ToHost(line);
}

void Session::ServerMessage(const mesh::StdioMessage& m,
                            absl::string_view line) {
  sink_->ToHost(line);
  if (m.kind == mesh::StdioKind::kNotification &&
      m.method == "notifications/tools/list_changed") {
    ToolsListChanged();
  }
}

}  // namespace mcp_proxy
}  // namespace toolgate
