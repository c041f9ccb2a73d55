// Engine: toolgate's RPCs as plain C++ over the core components.
//
// The gRPC server is a thin adapter over this class: it converts each proto
// request into the structs of core/pipeline/api.h, calls the Engine, and
// converts back. Keeping the decision logic below it keeps it testable
// without a network and usable from other front ends (the CLI, an Envoy
// filter).
//
// The Engine owns the state (snapshots, runs, the audit trail, the result
// schema cache) and is a facade: each RPC is its own handler over shared
// stages (docs/architecture.md):
//   ValidateToolCall    validate_tool_call.cc (the pipeline; read it first)
//   ValidateToolOutput  validate_tool_output.cc
//   ExtractVerdict      extract_verdict.cc
//   ListSnapshots       snapshot_pages.cc
//   approvals           approvals.cc (the store is core/approval)
//   snapshots and runs  engine.cc (straight to the stores)
//
// Errors a caller made (unknown snapshot, wrong run token, no output given)
// are absl::Status; decisions about model output are values, and only
// DECISION ALLOW lets a call run.
//
// Thread-safety: all methods may be called concurrently.
#ifndef TOOLGATE_CORE_ENGINE_ENGINE_H_
#define TOOLGATE_CORE_ENGINE_ENGINE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "core/approval/approval_store.h"
#include "core/gate/gate.h"
#include "core/output/output.h"
#include "core/pipeline/api.h"
#include "core/pipeline/audit_trail.h"
#include "core/pipeline/services.h"
#include "core/run/run_registry.h"
#include "core/snapshot/schema_pool.h"
#include "core/snapshot/snapshot.h"
#include "core/state/approval_ledger.h"
#include "core/state/memory_run_state.h"
#include "core/state/shared_state.h"
#include "core/util/cancel.h"
#include "core/verdict/verdict.h"

namespace toolgate {

class Engine {
 public:
  // `now` (tests only): where the run registry's idle clock reads time.
  // `shared` (--state_store): the stores runs, their state and approvals
  // live in instead of this process's memory.
  explicit Engine(EngineOptions options = {}, AuditSink audit = nullptr,
                  std::function<absl::Time()> now = nullptr,
                  state::SharedStateFactory shared = nullptr);

  // `rule` says who may point `name` at the new snapshot (see NameRule);
  // the default is the least privileged one.
  absl::StatusOr<std::shared_ptr<const Snapshot>> CreateSnapshot(
      absl::string_view manifest_json, ManifestFormat format,
      absl::string_view name, NameRule rule = NameRule::kClaim,
      const CancelToken& cancel = CancelToken());
  // By id, or by name when id is empty.
  absl::StatusOr<std::shared_ptr<const Snapshot>> GetSnapshot(
      absl::string_view id, absl::string_view name) const;
  // NOT_FOUND if absent; FAILED_PRECONDITION while an open run pins it or
  // a name loaded from --manifests points at it. Unbinds its names.
  absl::Status DeleteSnapshot(absl::string_view id);
  // One page of snapshots in id order. The token is opaque to callers: it
  // names the last snapshot of the previous page, so snapshots created
  // between pages never shift or repeat the ones already listed.
  // INVALID_ARGUMENT for a negative page_size or a token not from here.
  absl::StatusOr<SnapshotPage> ListSnapshots(
      int page_size, absl::string_view page_token) const;

  absl::StatusOr<OpenedRun> OpenRun(
      absl::string_view snapshot_id, absl::string_view model,
      std::map<std::string, std::string> context, RunLimits limits,
      std::vector<std::string> protected_texts = {});
  absl::Status CloseRun(absl::string_view run_id, absl::string_view token);
  absl::Status ResetRun(absl::string_view run_id, absl::string_view token);

  absl::StatusOr<ValidateCallResponse> ValidateToolCall(
      const ValidateCallRequest& request);

  // Checks a tool's output. In a run, an INVALID verdict counts toward the
  // run's kill switch; once it trips, ValidateToolCall rejects every write
  // and destructive call of the run until ResetRun.
  absl::StatusOr<ValidateOutputResponse> ValidateToolOutput(
      const ValidateOutputRequest& request);

  // Reads an agent's verdict. A result schema that does not compile is
  // INVALID_ARGUMENT (the caller's bug); every envelope problem is a
  // CONTRACT_STOP value.
  absl::StatusOr<VerdictResponse> ExtractVerdict(const VerdictRequest& request);

  // Approvals (ValidateToolCall asks for them in a run; see
  // core/pipeline/approvals.h). Admin: list, oldest first; empty run_id and
  // kUnspecified match all.
  // UNAVAILABLE when a shared state store cannot answer.
  absl::StatusOr<std::vector<Approval>> ListApprovals(absl::string_view run_id,
                                                      ApprovalState state);
  // Admin. INVALID_ARGUMENT for an empty approver, an approver over 256
  // bytes or a reason over 4 KiB; NOT_FOUND for an unknown id;
  // FAILED_PRECONDITION once it is no longer pending. Audited (who, when,
  // why) before it is returned.
  absl::StatusOr<Approval> DecideApproval(absl::string_view approval_id,
                                          bool approve,
                                          absl::string_view approver,
                                          absl::string_view reason);
  // Agent: the run must be open and the token match; returns as soon as
  // the approval is decided or expires, else after `timeout` (PENDING) or
  // when the caller goes (CANCELLED / DEADLINE_EXCEEDED).
  // RESOURCE_EXHAUSTED while the run already has max_waits_per_run waiting.
  absl::StatusOr<ApprovalState> AwaitApproval(absl::string_view run_id,
                                              absl::string_view token,
                                              absl::string_view approval_id,
                                              absl::Duration timeout,
                                              const CancelToken& cancel);

  const EngineOptions& options() const { return options_; }
  const SchemaPool& result_schema_cache() const { return result_schemas_; }
  // For the server's gauges (toolgate_snapshots, toolgate_open_runs).
  size_t snapshot_count() const { return snapshots_.size(); }
  // Runs open in this process (0 with a shared store: they are the
  // store's).
  size_t open_run_count() const { return memory_runs_.size(); }
  // Whether runs and approvals live in a shared store (--state_store): then
  // this process's counts of them say nothing about the fleet's.
  bool has_shared_state() const { return shared_.runs != nullptr; }
  uint64_t snapshots_evicted() const { return snapshots_.evicted(); }
  size_t pending_approval_count() const { return approvals_.pending(); }
  bool IsRunOpen(absl::string_view run_id) const {
    return memory_runs_.IsOpen(run_id);
  }
  // Closes runs idle past --run_idle_ttl_seconds (OpenRun and CreateSnapshot
  // also do, at most once a second); returns how many. Also drops expired
  // pending approvals and stale decided ones (as every Request does), so
  // that they go even when no approval is asked for.
  size_t SweepIdleRuns() {
    approvals_.Sweep();
    return runs_->Sweep();
  }
  // Bytes accounted to the protected-text indexes of open runs (each
  // distinct set once), and to the approvals held.
  size_t protected_text_bytes() const {
    return memory_runs_.protected_text_bytes();
  }
  size_t approval_bytes() const { return approvals_.bytes(); }
  size_t approval_count() const { return approvals_.size(); }

 private:
  const EngineOptions options_;
  const AuditTrail audit_;
  SnapshotStore snapshots_;
  RunRegistry memory_runs_;
  // Compiled inline result schemas, reused across ExtractVerdict calls
  // (--result_schema_cache_bytes); keyed by their text.
  SchemaPool result_schemas_;
  ApprovalStore approvals_;
  state::MemoryRunStateStore memory_run_state_;
  state::MemoryApprovalLedger memory_ledger_;
  // The shared stores when configured; the pointers below name the stores
  // in use (shared_'s, or the memory ones above).
  state::SharedState shared_;
  RunDirectory* const runs_;
  // Where runs' breakers, kill switches, budgets and approvals change.
  state::RunStateStore* const run_state_;
  state::ApprovalLedger* const ledger_;
  // What the handlers see of the above; declared last, built from them.
  const Services services_;
};

}  // namespace toolgate

#endif  // TOOLGATE_CORE_ENGINE_ENGINE_H_
