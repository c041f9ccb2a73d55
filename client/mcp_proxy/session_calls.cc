// Session: tools/calls (decided before they reach the server) and their
// results (checked before they reach the host).
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/mcp_proxy/answers.h"
#include "client/mcp_proxy/session.h"

namespace toolgate {
namespace mcp_proxy {
namespace {

constexpr size_t kMaxRememberedApprovals = 1024;

bool ReadableParams(const Json& message) {
  auto params = message.find("params");
  if (params == message.end() || !params->is_object()) return false;
  auto name = params->find("name");
  return name != params->end() && name->is_string() &&
         !name->get_ref<const std::string&>().empty();
}

}  // namespace

void Session::ToolCall(const mesh::StdioMessage& m, const Json& message) {
  if (!ReadableParams(message)) {
    Reply(Dir::kFromHost, m.id,
          ProtocolError(mesh::kInvalidParams, "invalid_params",
                        "tools/call params must be an object with a "
                        "non-empty string \"name\""));
    return;
  }
  if (IdInUse(m.id_key)) {
    Reply(Dir::kFromHost, m.id,
          ProtocolError(mesh::kInvalidRequest, "duplicate_id",
                        "a request with this id is still open"));
    return;
  }
  if (deciding_.size() + waiting_.size() >= options_.max_waiting_calls) {
    Reply(Dir::kFromHost, m.id,
          mesh::UnavailableError("too many tool calls are waiting"));
    return;
  }
  Call call{m.id, m.id_key, message["params"]};
  // MCP makes arguments optional; what is validated and forwarded is then
  // the empty object, which the tool's schema must accept.
  if (!call.params.contains("arguments")) {
    call.params["arguments"] = Json::object();
  }
  if (need_view_ || refresh_.has_value()) {
    waiting_.push_back(std::move(call));
    if (!refresh_.has_value()) StartRefresh();
    return;
  }
  Decide(std::move(call));
}

bool Session::Refused(const std::string& tool, const Json& id) {
  auto it = refused_.find(tool);
  if (it == refused_.end()) return false;
  sink_->ToHost(ErrorLine(id, ToolRefusedError(tool, it->second.reason,
                                               it->second.change,
                                               it->second.detail)));
  return true;
}

void Session::Decide(Call call) {
  const std::string tool = call.params["name"].get<std::string>();
  if (Refused(tool, call.id)) return;
  if (!run_.has_value()) {
    sink_->ToHost(ErrorLine(
        call.id, mesh::DeniedError("tools_not_pinned",
                                   "the server's tools could not be pinned")));
    return;
  }
  const std::string call_key =
      CanonicalJson({tool, call.params["arguments"]});
  auto remembered = approvals_.find(call_key);
  const std::string approval =
      remembered == approvals_.end() ? "" : remembered->second;
  deciding_[call.id_key] = false;
  const RunRef run = *run_;
  const Sidecar* sidecar = sidecar_;
  const bool posted = executor_->Post([this, sidecar, call, call_key, run,
                                       approval]() -> Executor::Completion {
    CallVerdict verdict =
        sidecar->DecideCall(run, call.id, call.id_key, call.params, approval);
    return [this, call, call_key, run, verdict = std::move(verdict)] {
      Decided(call, call_key, run, verdict);
    };
  });
  if (!posted) {
    deciding_.erase(call.id_key);
    sink_->ToHost(
        ErrorLine(call.id, mesh::UnavailableError("the proxy is too busy")));
  }
}

void Session::Decided(const Call& call, const std::string& call_key,
                      const RunRef& run, CallVerdict verdict) {
  auto it = deciding_.find(call.id_key);
  const bool cancelled = it == deciding_.end() || it->second;
  if (it != deciding_.end()) deciding_.erase(it);
  if (verdict.approval_done) ForgetApproval(call_key);
  if (!verdict.pending_approval.empty()) {
    RememberApproval(call_key, verdict.pending_approval);
  }
  if (cancelled) return;  // The host no longer waits for it.
  if (!verdict.forward) {
    sink_->ToHost(verdict.line);
    return;
  }
  const std::string tool = call.params["name"].get<std::string>();
  if (refresh_.has_value()) {
    // The tools are being read again (list_changed): the call goes once
    // it is known whether its tool changed.
    parked_.push_back({call.id, call.id_key, tool, std::move(verdict.line),
                       run});
    return;
  }
  Forward(call.id, call.id_key, tool, run, verdict.line);
}

void Session::Forward(const Json& id, const std::string& id_key,
                      const std::string& tool, const RunRef& run,
                      const std::string& line) {
  if (Refused(tool, id)) return;
  Outstanding o;
  o.method = "tools/call";
  o.tool = tool;
  o.run = run;
  outstanding_.emplace(id_key, std::move(o));
  sink_->ToServer(line, false);
}

void Session::CheckResult(const Outstanding& call, const mesh::StdioMessage& m,
                          const Json& message, absl::string_view line) {
  const Sidecar* sidecar = sidecar_;
  const size_t held = line.size();
  checking_bytes_ += held;
  const bool posted = executor_->Post(
      [this, sidecar, run = call.run, tool = call.tool, id_key = m.id_key,
       message, line = std::string(line), held]() -> Executor::Completion {
        std::string answer =
            sidecar->CheckResult(run, tool, message, id_key, line);
        return [this, answer = std::move(answer), held] {
          checking_bytes_ -= held;
          sink_->ToHost(answer);
        };
      });
  if (!posted) {
    checking_bytes_ -= held;
    sink_->ToHost(
        ErrorLine(m.id, mesh::UnavailableError("the proxy is too busy")));
  }
}

void Session::RememberApproval(const std::string& call_key,
                               const std::string& id) {
  auto [it, inserted] = approvals_.insert_or_assign(call_key, id);
  if (!inserted) return;
  approval_order_.push_back(call_key);
  if (approval_order_.size() > kMaxRememberedApprovals) {
    approvals_.erase(approval_order_.front());
    approval_order_.pop_front();
  }
}

void Session::ForgetApproval(const std::string& call_key) {
  approvals_.erase(call_key);  // Its place in approval_order_ ages out.
}

}  // namespace mcp_proxy
}  // namespace toolgate
