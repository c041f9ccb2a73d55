#include "core/engine/engine.h"

#include <exception>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/engine/extract_verdict.h"
#include "core/engine/snapshot_pages.h"
#include "core/engine/validate_tool_call.h"
#include "core/engine/validate_tool_output.h"
#include "core/snapshot/schema_pool.h"

namespace toolgate {
namespace {

// Runs an RPC's handler with exceptions turned into INTERNAL (a deny for
// every client), so none escapes the engine.
template <typename Fn>
auto Guarded(absl::string_view rpc, Fn fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return absl::InternalError(
        absl::StrCat(rpc, ": internal error (", e.what(), ")"));
  }
}

}  // namespace

Engine::Engine(EngineOptions options, AuditSink audit,
               std::function<absl::Time()> now,
               state::SharedStateFactory shared)
    : options_(options),
      audit_(std::move(audit), options.audit_required, options.audit_payloads),
      snapshots_(SnapshotStoreOptions{options.limits, options.max_snapshots,
                                      options.max_snapshot_bytes}),
      memory_runs_(
          RunRegistryOptions{options.max_runs, options.max_runs_per_tenant,
                             absl::Seconds(options.run_idle_ttl_seconds),
                             std::move(now), options.max_protected_text_bytes},
          &snapshots_),
      result_schemas_(options.result_schema_cache_bytes),
      approvals_(ApprovalStoreOptions{
          absl::Seconds(options.approval_ttl_seconds), options.max_approvals,
          options.max_pending_approvals_per_run,
          options.max_pending_approvals_per_tenant,
          options.max_approval_bytes}),
      memory_run_state_(approvals_),
      memory_ledger_(approvals_),
      shared_(shared ? shared(snapshots_) : state::SharedState()),
      runs_(shared_.runs ? shared_.runs.get() : &memory_runs_),
      run_state_(shared_.run_state ? shared_.run_state.get()
                                   : &memory_run_state_),
      ledger_(shared_.approvals ? shared_.approvals.get() : &memory_ledger_),
      services_{options_, snapshots_, *runs_, approvals_, *run_state_,
                audit_} {
  SchemaPool::Global().SetMaxBytes(options.schema_pool_bytes);
}

absl::StatusOr<ValidateCallResponse> Engine::ValidateToolCall(
    const ValidateCallRequest& request) {
  // Schemas compiled on use are this request's work (tool_schema.h).
  CompileScope compile(options_.request_compile_bytes);
  return Guarded("ValidateToolCall",
                 [&] { return HandleValidateToolCall(services_, request); });
}

absl::StatusOr<ValidateOutputResponse> Engine::ValidateToolOutput(
    const ValidateOutputRequest& request) {
  CompileScope compile(options_.request_compile_bytes);
  return Guarded("ValidateToolOutput",
                 [&] { return HandleValidateToolOutput(services_, request); });
}

absl::StatusOr<VerdictResponse> Engine::ExtractVerdict(
    const VerdictRequest& request) {
  return Guarded("ExtractVerdict", [&] {
    return HandleExtractVerdict(services_, result_schemas_, request);
  });
}

absl::StatusOr<std::shared_ptr<const Snapshot>> Engine::CreateSnapshot(
    absl::string_view manifest_json, ManifestFormat format,
    absl::string_view name, NameRule rule, const CancelToken& cancel) {
  // Idle runs release their pins first: they may be what fills the store.
  memory_runs_.SweepIfDue();
  return snapshots_.Create(manifest_json, format, name, rule, &cancel);
}

absl::Status Engine::DeleteSnapshot(absl::string_view id) {
  if (id.empty()) {
    return absl::InvalidArgumentError("DeleteSnapshot needs a snapshot_id");
  }
  runs_->Sweep();  // A run that has expired no longer holds it.
  return snapshots_.Delete(id);
}

absl::StatusOr<std::shared_ptr<const Snapshot>> Engine::GetSnapshot(
    absl::string_view id, absl::string_view name) const {
  if (!id.empty()) return snapshots_.Get(id);
  if (!name.empty()) return snapshots_.GetByName(name);
  return absl::InvalidArgumentError("name a snapshot_id or a name");
}

absl::StatusOr<SnapshotPage> Engine::ListSnapshots(
    int page_size, absl::string_view page_token) const {
  return ListSnapshotPage(snapshots_, page_size, page_token,
                          options_.snapshot_page_bytes);
}

absl::StatusOr<OpenedRun> Engine::OpenRun(
    absl::string_view snapshot_id, absl::string_view model,
    std::map<std::string, std::string> context, RunLimits limits,
    std::vector<std::string> protected_texts) {
  if (snapshot_id.empty()) {
    return absl::InvalidArgumentError("OpenRun needs a snapshot_id");
  }
  if (limits.text_format == extract::TextFormat::kUnrecognized) {
    return absl::InvalidArgumentError(
        "text_format: a TextFormat value this server does not name");
  }
  auto snapshot = snapshots_.Get(snapshot_id);
  if (!snapshot.ok()) return snapshot.status();
  return runs_->Open(*std::move(snapshot), model, std::move(context), limits,
                    std::move(protected_texts));
}

absl::Status Engine::CloseRun(absl::string_view run_id,
                              absl::string_view token) {
  return runs_->Close(run_id, token);
}

absl::Status Engine::ResetRun(absl::string_view run_id,
                              absl::string_view token) {
  auto run = runs_->Authorize(run_id, token);
  if (!run.ok()) return run.status();
  return run_state_->Reset(**run);
}

}  // namespace toolgate
