// Engine's approval RPCs: straight to the store, plus the caller checks
// and the audit record of every decision.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "core/engine/engine.h"

namespace toolgate {
namespace {

constexpr size_t kMaxApproverBytes = 256;
constexpr size_t kMaxReasonBytes = 4096;

absl::Status CheckDecider(absl::string_view approver,
                          absl::string_view reason) {
  if (approver.empty()) {
    return absl::InvalidArgumentError(
        "DecideApproval needs an approver: who decided goes into the audit "
        "trail");
  }
  if (approver.size() > kMaxApproverBytes || reason.size() > kMaxReasonBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "DecideApproval: approver is limited to ", kMaxApproverBytes,
        " bytes and reason to ", kMaxReasonBytes));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<Approval>> Engine::ListApprovals(
    absl::string_view run_id, ApprovalState state) {
  return ledger_->List(run_id, state);
}

absl::StatusOr<Approval> Engine::DecideApproval(absl::string_view approval_id,
                                                bool approve,
                                                absl::string_view approver,
                                                absl::string_view reason) {
  const AuditClock::time_point started = AuditClock::now();
  if (absl::Status ok = CheckDecider(approver, reason); !ok.ok()) return ok;
  absl::StatusOr<std::string> audit_id = audit_.NewId();
  if (!audit_id.ok()) return audit_id.status();
  absl::StatusOr<Approval> decided =
      ledger_->Decide(approval_id, approve, approver, reason);
  if (!decided.ok()) return decided.status();
  AuditRecord record;
  record.audit_id = *std::move(audit_id);
  record.rpc = "DecideApproval";
  record.decision = std::string(ApprovalStateName(decided->state));
  record.run_id = decided->run_id;
  record.model = decided->model;
  record.tools = {decided->tool};
  record.approval_id = decided->approval_id;
  record.approver = decided->approver;
  record.reason = decided->reason;
  // The decision stands even if the record could not be written: it was
  // made by a human, and reverting it would race the agent's wait.
  audit_.Write(std::move(record), Target(), started).IgnoreError();
  return decided;
}

absl::StatusOr<ApprovalState> Engine::AwaitApproval(
    absl::string_view run_id, absl::string_view token,
    absl::string_view approval_id, absl::Duration timeout,
    const CancelToken& cancel) {
  auto run = runs_->Authorize(run_id, token);
  if (!run.ok()) return run.status();
  // One run must not hold every waiting slot of the server (or, with a
  // shared store, of the deployment).
  // No approval stays pending longer than its TTL: a longer wait could
  // only end at the timeout, and an unbounded one would hold its slot.
  timeout = std::min(timeout, absl::Seconds(options_.approval_ttl_seconds) +
                                  absl::Seconds(1));
  std::string ticket;
  absl::StatusOr<bool> waiting = run_state_->BeginWait(
      **run, options_.max_waits_per_run, timeout, &ticket);
  if (!waiting.ok()) return waiting.status();
  if (!*waiting) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "run ", run_id, " already has ", options_.max_waits_per_run,
        " AwaitApproval calls waiting (--max_waits_per_run=",
        options_.max_waits_per_run, "); wait for them to return"));
  }
  const absl::Cleanup done = [&] { run_state_->EndWait(**run, ticket); };
  absl::StatusOr<ApprovalState> state = ledger_->Await(
      run_id, approval_id, timeout, [&] { return !cancel.CheckNow().ok(); });
  if (!state.ok()) return state;
  // A caller that went away gets no state (it would not read it).
  if (absl::Status gone = cancel.Check(); !gone.ok()) return gone;
  return state;
}

}  // namespace toolgate
