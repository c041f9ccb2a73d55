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
// Arguments the sidecar validated are at most its own input limit; this
// only bounds the read of its answer.
constexpr size_t kMaxArgumentsBytes = size_t{64} << 20;

const std::string& NameOf(const Json& tool) {
  return tool["name"].get_ref<const std::string&>();
}

// The approval a refused answer waits for: NEEDS_APPROVAL's new one, or
// the remembered one the sidecar says is still pending.
std::string PendingApproval(const v1::ValidateToolCallResponse& r,
                            const std::string& remembered) {
  if (r.decision() == v1::DECISION_NEEDS_APPROVAL) return r.approval_id();
  if (!remembered.empty() && r.decision() == v1::DECISION_REJECT &&
      r.violations_size() == 1 &&
      r.violations(0).code() == "approval_pending") {
    return remembered;
  }
  return "";
}

std::string NeedsApprovalLine(const Json& id, v1::ValidateToolCallResponse r,
                              const std::string& approval_id) {
  r.set_decision(v1::DECISION_NEEDS_APPROVAL);
  r.set_approval_id(approval_id);
  if (r.message().empty()) {
    r.set_message(
        "an operator must approve this call (toolgatectl approvals decide); "
        "then send the same call again");
  }
  return ErrorLine(id, DecisionError(r));
}

// The request the server gets: the host's, with the arguments toolgate
// validated (canonical) in place of the ones it sent.
// An ALLOW for anything but this one call is no ALLOW for it.
absl::StatusOr<std::string> ForwardLine(const Json& id, const Json& params,
                                        const v1::ValidateToolCallResponse& r) {
  const std::string& tool = NameOf(params);
  if (r.calls_size() != 1 || r.calls(0).name() != tool) {
    return absl::InternalError("the sidecar allowed another call than asked");
  }
  absl::StatusOr<Json> arguments =
      ParseStrictJson(r.calls(0).arguments_json(), {kMaxArgumentsBytes, 1024});
  if (!arguments.ok() || !arguments->is_object()) {
    return absl::InternalError("the sidecar's arguments_json is unreadable");
  }
  Json forwarded = params;
  forwarded["arguments"] = *std::move(arguments);
  return CanonicalJson({{"jsonrpc", "2.0"},
                        {"id", id},
                        {"method", "tools/call"},
                        {"params", std::move(forwarded)}});
}

}  // namespace

Sidecar::Sidecar(const client::ToolGateClient* client, SidecarOptions options,
                 const std::atomic<bool>* stopping)
    : client_(client),
      options_(std::move(options)),
      stopping_(stopping) {}

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

v1::ValidateToolCallResponse Sidecar::ValidateOnce(
    const RunRef& run, const std::string& id_key, const std::string& native,
    const std::string& approval_id, absl::Status* status) const {
  v1::ValidateToolCallRequest request;
  request.set_run_id(run.run_id);
  request.set_run_token(run.run_token);
  request.set_native_json(native);
  request.set_approval_id(approval_id);
  request.set_mcp_request_id(id_key);
  absl::StatusOr<v1::ValidateToolCallResponse> r =
      client_->ValidateToolCall(request);
  *status = r.status();
  return r.ok() ? *std::move(r) : v1::ValidateToolCallResponse();
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
  const std::string native = CanonicalJson(params);
  const std::string& tool = NameOf(params);
  CallVerdict v;
  absl::Status status;
  v1::ValidateToolCallResponse r =
      ValidateOnce(run, id_key, native, approval_id, &status);
  std::string pending = PendingApproval(r, approval_id);
  if (status.ok() && !pending.empty()) {
    PrintApprovalHint(tool, id_key, pending);
    if (options_.await_approval > absl::ZeroDuration() &&
        AwaitDecided(run, pending)) {
      r = ValidateOnce(run, id_key, native, pending, &status);
      pending = PendingApproval(r, pending);
      v.approval_done = pending.empty();
    }
  } else if (!approval_id.empty()) {
    v.approval_done = true;
  }
  if (!status.ok()) {
    v.line = ErrorLine(id, StatusError(status));
    return v;
  }
  if (!pending.empty()) {
    v.pending_approval = pending;
    v.line = NeedsApprovalLine(id, r, pending);
    return v;
  }
  if (client::GateResult(absl::OkStatus(), r).allowed()) {
    absl::StatusOr<std::string> forward = ForwardLine(id, params, r);
    v.forward = forward.ok();
    v.line = forward.ok() ? *std::move(forward)
                          : ErrorLine(id, mesh::UnavailableError(
                                              forward.status().message()));
    return v;
  }
  v.line = ErrorLine(id, DecisionError(r));
  return v;
}

std::string Sidecar::CheckResult(const RunRef& run, absl::string_view tool,
                                 const Json& id, const std::string& id_key,
                                 const Json& result, absl::string_view line,
                                 bool exact) const {
  v1::ValidateToolOutputRequest request;
  request.set_run_id(run.run_id);
  request.set_run_token(run.run_token);
  request.set_tool_name(std::string(tool));
  request.set_content_type("application/json");
  request.set_http_status(-1);
  request.set_body(CanonicalJson(result));
  request.set_mode(v1::OUTPUT_MODE_FAIL_CLOSED);
  request.set_mcp_request_id(id_key);
  absl::StatusOr<v1::ValidateToolOutputResponse> r =
      client_->ValidateToolOutput(request);
  if (!r.ok()) return ErrorLine(id, StatusError(r.status()));
  if (client::ToolOutputResult(absl::OkStatus(), *r).valid()) {
    if (exact) return std::string(line);
    return CanonicalJson({{"jsonrpc", "2.0"}, {"id", id}, {"result", result}});
  }
  if (r->verdict() == v1::OUTPUT_VERDICT_INVALID) {
    return WithheldResultLine(id, tool, *r);
  }
  return ErrorLine(id, mesh::UnavailableError("the sidecar gave no verdict"));
}

}  // namespace mcp_proxy
}  // namespace toolgate
