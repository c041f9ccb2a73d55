#include "client/mcp_proxy/sidecar.h"

#include <algorithm>
#include <iostream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/mcp_proxy/answers.h"

namespace toolgate {
namespace mcp_proxy {
namespace {

// Past this many tools a refused manifest is not probed tool by tool.
constexpr size_t kMaxProbedTools = 256;
// The audit record's source of the gateway's decisions (and metrics'
// rpc label, which the sidecar reads from mcp_request_id).
constexpr char kSource[] = "mcp.stdio";

const std::string& NameOf(const Json& tool) {
  return tool["name"].get_ref<const std::string&>();
}

// The approval a refused call waits for: NEEDS_APPROVAL's new one, or the
// remembered one the sidecar says is still pending.
std::string PendingApproval(const mesh::McpDecision& d,
                            const std::string& remembered) {
  if (!d.decided.has_value()) return "";
  const ValidateCallResponse& r = *d.decided;
  if (r.decision == Decision::kNeedsApproval) return r.approval_id;
  if (!remembered.empty() && r.decision == Decision::kReject &&
      r.violations.size() == 1 && r.violations[0].code == "approval_pending") {
    return remembered;
  }
  return "";
}

// A call still waiting for its remembered approval is told so as
// NEEDS_APPROVAL (with that approval), not as a REJECT it cannot fix.
std::string NeedsApprovalLine(const Json& id, ValidateCallResponse r,
                              const std::string& approval_id) {
  r.decision = Decision::kNeedsApproval;
  r.approval_id = approval_id;
  r.violations.clear();
  if (r.message.empty()) {
    r.message =
        "an operator must approve this call (toolgatectl approvals decide); "
        "then send the same call again";
  }
  return ErrorLine(id, mesh::ErrorForDecision(r));
}

// The result the host gets instead of an INVALID one: isError true, a
// text naming the tool and the violations (codes and pointers, never the
// tool's content), and the path's error data under
// _meta["dev.toolgate/output"].
std::string WithheldResultLine(const Json& id, absl::string_view tool,
                               const mesh::RpcError& error) {
  std::string text = absl::StrCat("toolgate withheld the answer of tool \"",
                                  tool, "\": it failed validation (");
  bool first = true;
  auto violations = error.data.find("violations");
  if (violations != error.data.end() && violations->is_array()) {
    for (const Json& v : *violations) {
      const std::string code = v.value("code", "");
      const std::string pointer = v.value("pointer", "");
      absl::StrAppend(&text, first ? "" : "; ", code,
                      pointer.empty() ? "" : " at ", pointer);
      first = false;
    }
  }
  absl::StrAppend(&text, first ? "no violation listed" : "", ").");
  if (error.data.value("read_only", false)) {
    absl::StrAppend(&text, " The run is now read-only: write and "
                           "destructive tools are refused.");
  }
  Json result = {
      {"content", Json::array({{{"type", "text"}, {"text", text}}})},
      {"isError", true},
      {"_meta", {{"dev.toolgate/output", error.data}}}};
  return CanonicalJson({{"jsonrpc", "2.0"}, {"id", id}, {"result", result}});
}

// The path's answer to one message as the line the host gets. A deny of a
// message toolgate could not read at all carries no id; the host's
// request still gets its answer, under its own id.
std::string AnswerLine(const Json& id, Json answer) {
  if (answer.is_object() && answer.contains("id") && answer["id"].is_null()) {
    answer["id"] = id;
  }
  return CanonicalJson(answer);
}

}  // namespace

Sidecar::Sidecar(const client::ToolGateClient* client, SidecarOptions options,
                 const std::atomic<bool>* stopping)
    : client_(client),
      options_(std::move(options)),
      stopping_(stopping),
      decider_(std::make_unique<GrpcDecider>(client)),
      gate_(decider_.get(), mesh::McpLimits()) {}

absl::StatusOr<RunRef> Sidecar::CreateAndOpen(
    const std::vector<Json>& tools) const {
  v1::CreateSnapshotRequest create;
  create.set_manifest_json(mesh::ToolgateManifest(tools, options_.policy));
  create.set_format(v1::MANIFEST_FORMAT_TOOLGATE);
  absl::StatusOr<v1::CreateSnapshotResponse> snapshot =
      client_->CreateSnapshot(create);
  if (!snapshot.ok()) return snapshot.status();
  v1::OpenRunRequest open;
  open.set_snapshot_id(snapshot->snapshot_id());
  open.set_model(options_.model);
  if (!options_.tenant.empty()) {
    (*open.mutable_context())["tenant"] = options_.tenant;
  }
  absl::StatusOr<v1::OpenRunResponse> run = client_->OpenRun(open);
  if (!run.ok()) return run.status();
  if (run->run_id().empty() || run->run_token().empty()) {
    return absl::InternalError("OpenRun answered without a run");
  }
  return RunRef{run->snapshot_id(), run->run_id(), run->run_token()};
}

std::vector<std::string> Sidecar::Unpinnable(
    const std::vector<Json>& tools) const {
  std::vector<std::string> refused;
  for (const Json& tool : tools) {
    v1::CreateSnapshotRequest create;
    create.set_manifest_json(mesh::ToolgateManifest({tool}, options_.policy));
    create.set_format(v1::MANIFEST_FORMAT_TOOLGATE);
    absl::StatusOr<v1::CreateSnapshotResponse> r =
        client_->CreateSnapshot(create);
    if (!r.ok() && r.status().code() == absl::StatusCode::kInvalidArgument) {
      refused.push_back(absl::StrCat(NameOf(tool), "\n", r.status().message()));
    }
  }
  return refused;
}

absl::StatusOr<Pinned> Sidecar::PinTools(const std::vector<Json>& tools) const {
  Pinned pinned;
  std::vector<Json> converted;
  std::vector<std::string> listed;
  for (const Json& tool : tools) {
    listed.push_back(NameOf(tool));
    absl::StatusOr<Json> t = mesh::ToolgateTool(tool, options_.policy);
    if (t.ok()) {
      converted.push_back(*std::move(t));
    } else {
      pinned.dropped.emplace_back(NameOf(tool), t.status().message());
    }
  }
  std::vector<std::string> unlisted =
      mesh::UnlistedPolicyTools(options_.policy, listed);
  if (!unlisted.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("--policy names tools the server does not list: ",
                     absl::StrJoin(unlisted, ", ")));
  }
  absl::StatusOr<RunRef> run = absl::FailedPreconditionError("no tools");
  if (!converted.empty()) run = CreateAndOpen(converted);
  if (!run.ok() && run.status().code() == absl::StatusCode::kInvalidArgument &&
      converted.size() <= kMaxProbedTools) {
    for (const std::string& refused : Unpinnable(converted)) {
      const size_t cut = refused.find('\n');
      const std::string name = refused.substr(0, cut);
      pinned.dropped.emplace_back(name, refused.substr(cut + 1));
      converted.erase(std::remove_if(converted.begin(), converted.end(),
                                     [&](const Json& t) {
                                       return NameOf(t) == name;
                                     }),
                      converted.end());
    }
    run = converted.empty() ? absl::FailedPreconditionError("no tools")
                            : CreateAndOpen(converted);
  }
  if (!run.ok()) return run.status();
  pinned.run = *std::move(run);
  return pinned;
}

void Sidecar::CloseRun(const RunRef& run) const {
  v1::CloseRunRequest close;
  close.set_run_id(run.run_id);
  close.set_run_token(run.run_token);
  (void)client_->CloseRun(close);  // Best effort: the run expires anyway.
}

mesh::McpDecision Sidecar::DecideOnce(const RunRef& run,
                                      const mesh::McpRequest& call,
                                      const std::string& id_key,
                                      const std::string& approval_id) const {
  mesh::McpAsk ask;
  ask.run_id = run.run_id;
  ask.run_token = run.run_token;
  ask.approval_id = approval_id;
  ask.source = kSource;
  ask.mcp_request_id = id_key;
  return gate_.Decide(ask, call);
}

bool Sidecar::AwaitDecided(const RunRef& run,
                           const std::string& approval_id) const {
  const absl::Time deadline = absl::Now() + options_.await_approval;
  while (!stopping_->load()) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return false;
    // In pieces, so a proxy that is stopping does not wait it out.
    v1::AwaitApprovalRequest await;
    await.set_run_id(run.run_id);
    await.set_run_token(run.run_token);
    await.set_approval_id(approval_id);
    await.set_timeout_ms(absl::ToInt64Milliseconds(
        std::min(left, absl::Seconds(1))));
    absl::StatusOr<v1::AwaitApprovalResponse> r = client_->AwaitApproval(await);
    if (!r.ok()) return false;
    if (r->state() != v1::APPROVAL_STATE_PENDING) return true;
  }
  return false;
}

void Sidecar::PrintApprovalHint(absl::string_view tool,
                                const std::string& id_key,
                                const std::string& approval_id) const {
  std::string text = absl::StrCat(
      "toolgatectl mcp-proxy: tools/call \"", tool, "\" (id ", id_key,
      ") needs approval ", approval_id);
  if (options_.await_approval > absl::ZeroDuration()) {
    absl::StrAppend(&text, "; waiting up to ",
                    absl::FormatDuration(options_.await_approval));
  }
  absl::StrAppend(&text, ". Approve with:\n  ", options_.approve_command,
                  " --approval ", approval_id,
                  " --decision approve --approver NAME --reason TEXT\n");
  std::cerr << text << std::flush;
}

CallVerdict Sidecar::DecideCall(const RunRef& run, const Json& id,
                                const std::string& id_key, const Json& params,
                                const std::string& approval_id) const {
  const Json message = {
      {"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"},
      {"params", params}};
  const mesh::McpRequest call = gate_.ReadMessage(message);
  CallVerdict v;
  mesh::McpDecision d = DecideOnce(run, call, id_key, approval_id);
  std::string pending = PendingApproval(d, approval_id);
  if (!pending.empty()) {
    PrintApprovalHint(NameOf(params), id_key, pending);
    if (options_.await_approval > absl::ZeroDuration() &&
        AwaitDecided(run, pending)) {
      d = DecideOnce(run, call, id_key, pending);
      pending = PendingApproval(d, pending);
      v.approval_done = pending.empty();
    }
  } else if (!approval_id.empty() && d.decided.has_value()) {
    v.approval_done = true;  // Used, or no longer usable.
  }
  if (d.allowed) {
    // Decided as sent (the path checked the engine's calls are the ones
    // in the message): the server gets the message, canonical.
    v.forward = true;
    v.line = CanonicalJson(message);
    return v;
  }
  if (!pending.empty()) {
    v.pending_approval = pending;
    v.line = NeedsApprovalLine(id, *d.decided, pending);
    return v;
  }
  v.line = AnswerLine(id, std::move(d.answer));
  return v;
}

std::string Sidecar::CheckResult(const RunRef& run, absl::string_view tool,
                                 const Json& response,
                                 const std::string& id_key,
                                 absl::string_view line) const {
  mesh::AnswerAsk ask;
  ask.run_id = run.run_id;
  ask.run_token = run.run_token;
  ask.source = kSource;
  ask.mcp_request_id = id_key;
  mesh::ResultCheck check = gate_.CheckResult(ask, tool, response);
  const Json& id = response["id"];
  if (check.valid) return std::string(line);
  mesh::RpcError error = check.error.has_value()
                             ? *std::move(check.error)
                             : mesh::UnavailableError("no verdict");
  if (check.label == "INVALID") return WithheldResultLine(id, tool, error);
  if (error.data.value("reason", "") == "tool_error") {
    // An error's text would reach the model unchecked: only its code goes.
    error.data["tool"] = std::string(tool);
    auto e = response.find("error");
    if (e != response.end()) error.data["server_code"] = (*e)["code"];
  }
  return ErrorLine(id, error);
}

}  // namespace mcp_proxy
}  // namespace toolgate
