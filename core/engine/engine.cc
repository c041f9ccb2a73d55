#include "core/engine/engine.h"

#include <exception>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/engine/repair_prompt.h"
#include "core/extract/extract.h"
#include "core/util/ids.h"
#include "core/util/truncate.h"

namespace toolgate {
namespace {

template <typename Fn>
auto Guarded(absl::string_view rpc, Fn fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return absl::InternalError(
        absl::StrCat(rpc, ": internal error (", e.what(), ")"));
  }
}

// What the caller learns about one call: for an ALLOW, exactly the value
// that was validated, in canonical form.
CallReport ToReport(CheckedCall& c) {
  CallReport report;
  report.id = c.raw.id;
  // A name that resolved to no tool is echoed cut to the longest a tool
  // name can be (a model may send a huge one).
  report.name = c.tool != nullptr ? c.raw.name
                                  : TruncateText(c.raw.name, kMaxToolNameBytes);
  if (c.raw.error.ok()) report.arguments_json = CanonicalJson(c.raw.arguments);
  report.repairs = std::move(c.raw.repairs);
  report.source = c.raw.source;
  report.candidates_seen = c.raw.candidates_seen;
  return report;
}

}  // namespace

absl::StatusOr<ValidateCallResponse> Engine::ValidateToolCall(
    const ValidateCallRequest& request) {
  return Guarded("ValidateToolCall",
                 [&] { return DoValidateToolCall(request); });
}

absl::StatusOr<ValidateOutputResponse> Engine::ValidateToolOutput(
    const ValidateOutputRequest& request) {
  return Guarded("ValidateToolOutput",
                 [&] { return DoValidateToolOutput(request); });
}

absl::StatusOr<VerdictResponse> Engine::ExtractVerdict(
    const VerdictRequest& request) {
  return Guarded("ExtractVerdict", [&] { return DoExtractVerdict(request); });
}

Engine::Engine(EngineOptions options, AuditSink audit)
    : options_(options),
      audit_(std::move(audit)),
      audit_prefix_(RandomHex(8)),
      snapshots_(SnapshotStoreOptions{options.limits, options.max_snapshots}),
      runs_(RunRegistryOptions{options.max_runs}),
      result_schemas_(options.result_schema_cache_bytes) {}

absl::StatusOr<std::shared_ptr<const Snapshot>> Engine::CreateSnapshot(
    absl::string_view manifest_json, ManifestFormat format,
    absl::string_view name, NameRule rule, const CancelToken& cancel) {
  return snapshots_.Create(manifest_json, format, name, rule, &cancel);
}

absl::StatusOr<std::shared_ptr<const Snapshot>> Engine::GetSnapshot(
    absl::string_view id, absl::string_view name) const {
  if (!id.empty()) return snapshots_.Get(id);
  if (!name.empty()) return snapshots_.GetByName(name);
  return absl::InvalidArgumentError("name a snapshot_id or a name");
}

absl::StatusOr<OpenedRun> Engine::OpenRun(
    absl::string_view snapshot_id, absl::string_view model,
    std::map<std::string, std::string> context, RunLimits limits) {
  if (snapshot_id.empty()) {
    return absl::InvalidArgumentError("OpenRun needs a snapshot_id");
  }
  auto snapshot = snapshots_.Get(snapshot_id);
  if (!snapshot.ok()) return snapshot.status();
  return runs_.Open(*std::move(snapshot), model, std::move(context), limits);
}

absl::Status Engine::CloseRun(absl::string_view run_id,
                              absl::string_view token) {
  return runs_.Close(run_id, token);
}

absl::Status Engine::ResetRun(absl::string_view run_id,
                              absl::string_view token) {
  auto run = runs_.Authorize(run_id, token);
  if (!run.ok()) return run.status();
  (*run)->Reset();
  return absl::OkStatus();
}

absl::StatusOr<Engine::Target> Engine::ResolveTarget(
    absl::string_view snapshot_id, absl::string_view run_id,
    absl::string_view run_token) const {
  Target target;
  if (!run_id.empty()) {
    auto run = runs_.Authorize(run_id, run_token);
    if (!run.ok()) return run.status();
    target.run = *std::move(run);
    target.snapshot = target.run->snapshot_ptr();
    if (!snapshot_id.empty() && snapshot_id != target.snapshot->id()) {
      return absl::InvalidArgumentError(
          absl::StrCat("snapshot_id ", snapshot_id, " is not the snapshot run ",
                       run_id, " pinned (", target.snapshot->id(), ")"));
    }
    return target;
  }
  if (!run_token.empty()) {
    return absl::InvalidArgumentError("run_token given without run_id");
  }
  if (snapshot_id.empty()) {
    return absl::InvalidArgumentError(
        "name the snapshot: a snapshot_id, or a run_id with its run_token");
  }
  auto snapshot = snapshots_.Get(snapshot_id);
  if (!snapshot.ok()) return snapshot.status();
  target.snapshot = *std::move(snapshot);
  return target;
}

RawCalls Engine::ReadCalls(const ValidateCallRequest& request) const {
  if (request.kind == OutputKind::kNative) {
    return ReadNativeCalls(request.output, options_.limits);
  }
  extract::ExtractLimits limits;
  limits.max_input_bytes = options_.limits.max_bytes;
  limits.json = options_.limits;
  extract::ExtractionResult found = extract::ExtractToolCalls(
      request.output,
      request.syntax_repair ? repair::RepairPolicy::kSyntaxRepair
                            : repair::RepairPolicy::kStrict,
      limits);
  RawCalls out;
  if (!found.ok()) {
    out.error =
        ReadError{found.error.code, found.error.pointer, found.error.message};
    return out;
  }
  for (extract::ExtractedCall& c : found.calls) {
    RawCall call;
    call.name = std::move(c.name);
    call.source = std::string(c.source_name());
    call.arguments = std::move(c.arguments);
    call.repairs = std::move(c.repairs);
    call.candidates_seen = c.candidates_seen;
    out.calls.push_back(std::move(call));
  }
  return out;
}

absl::StatusOr<ValidateCallResponse> Engine::DoValidateToolCall(
    const ValidateCallRequest& request) {
  if (request.kind == OutputKind::kUnset) {
    return absl::InvalidArgumentError(
        "model_output is required: set text or native_json");
  }
  absl::StatusOr<Target> target =
      ResolveTarget(request.snapshot_id, request.run_id, request.run_token);
  if (!target.ok()) return target.status();
  ValidateCallResponse response;
  response.snapshot_id = target->snapshot->id();
  absl::StatusOr<std::string> audit_id = NewAuditId();
  if (!audit_id.ok()) return audit_id.status();
  response.audit_id = *std::move(audit_id);
  if (target->run != nullptr && target->run->Current().breaker_open) {
    response.decision = Decision::kStop;
    response.stop_reason = "misformat_circuit_open";
    response.attempt = target->run->max_consecutive_rejects();
    AuditCall(response, *target);
    return response;
  }
  GateOptions gate_options;
  gate_options.max_violations_per_call = options_.max_violations_per_call;
  gate_options.max_calls_per_output = options_.max_calls_per_output;
  gate_options.cancel = &request.cancel;
  GateResult result =
      CheckToolCalls(*target->snapshot, ReadCalls(request), gate_options);
  if (!result.interrupted.ok()) return result.interrupted;
  if (absl::Status gone = request.cancel.Check(); !gone.ok()) return gone;
  response.decision = result.decision;
  response.stop_reason = result.stop_reason;
  response.violations = std::move(result.violations);
  if (target->run != nullptr && target->run->read_only()) {
    ApplyKillSwitch(*target->run, result, &response);
  }
  for (CheckedCall& c : result.calls) response.calls.push_back(ToReport(c));
  // A reject in a run counts toward its breaker: first make sure the caller
  // still waits (work done for nobody is no reject). Asking gRPC is costly,
  // so only here, not on the ALLOW path.
  if (target->run != nullptr && response.decision == Decision::kReject) {
    if (absl::Status gone = request.cancel.CheckNow(); !gone.ok()) return gone;
  }
  ApplyLoop(target->run.get(), &response);
  AuditCall(response, *target);
  return response;
}

void Engine::ApplyKillSwitch(const Run& run, const GateResult& gate,
                             ValidateCallResponse* response) {
  for (size_t i = 0; i < gate.calls.size(); ++i) {
    const CompiledTool* tool = gate.calls[i].tool;
    if (tool == nullptr || tool->spec.side_effect == SideEffect::kRead)
      continue;
    Violation v;
    v.code = "kill_switch_read_only";
    v.tool = tool->spec.name;
    v.expected = "a read-only tool";
    v.received = absl::StrCat(SideEffectName(tool->spec.side_effect), " tool");
    v.message = absl::StrCat("run ", run.id(),
                             " is read-only after repeated invalid tool "
                             "outputs; only read tools may run until ResetRun");
    v.call_index = static_cast<int>(i);
    response->violations.push_back(std::move(v));
    response->decision = Decision::kReject;
    response->stop_reason = "kill_switch_read_only";
  }
}

void Engine::ApplyLoop(Run* run, ValidateCallResponse* response) const {
  const bool rejected = response->decision == Decision::kReject;
  // A write refused by the kill switch is not a misformatted call: it does
  // not count toward the breaker (the stop_reason already tells the agent).
  bool misformat = false;
  for (const Violation& v : response->violations) {
    misformat |= v.code != "kill_switch_read_only";
  }
  if (run != nullptr && (misformat || !rejected)) {
    const LoopState state = rejected ? run->RecordReject() : run->RecordAllow();
    response->attempt = state.attempt;
    response->attempts_left = state.attempts_left;
  }
  if (rejected) {
    response->repair_prompt =
        BuildRepairPrompt(response->violations, response->attempt,
                          run == nullptr ? 0 : run->max_consecutive_rejects());
  }
}

absl::StatusOr<std::string> Engine::NewAuditId() const {
  if (!audit_prefix_.ok()) return audit_prefix_.status();
  const uint64_t n = audit_counter_.fetch_add(1) + 1;
  return absl::StrCat("aud_", *audit_prefix_, absl::Hex(n, absl::kZeroPad16));
}

void Engine::AuditCall(const ValidateCallResponse& response,
                       const Target& target) const {
  if (!audit_) return;
  AuditRecord record;
  record.audit_id = response.audit_id;
  record.rpc = "ValidateToolCall";
  record.decision = std::string(DecisionName(response.decision));
  record.stop_reason = response.stop_reason;
  for (const CallReport& c : response.calls) record.tools.push_back(c.name);
  for (const Violation& v : response.violations) record.codes.push_back(v.code);
  Audit(std::move(record), target);
}

namespace {

// Bounds what an audit line echoes (see kAuditMaxListed).
void BoundAuditList(std::vector<std::string>* list) {
  for (std::string& item : *list) {
    if (item.size() > kMaxToolNameBytes) {
      item = TruncateText(item, kMaxToolNameBytes);
    }
  }
  if (list->size() > kAuditMaxListed) {
    const size_t more = list->size() - kAuditMaxListed;
    list->resize(kAuditMaxListed);
    list->push_back(absl::StrCat("+", more, " more"));
  }
}

}  // namespace

void Engine::Audit(AuditRecord record, const Target& target) const {
  if (!audit_) return;
  BoundAuditList(&record.tools);
  BoundAuditList(&record.codes);
  if (target.snapshot != nullptr) record.snapshot_id = target.snapshot->id();
  if (target.run != nullptr) record.run_id = target.run->id();
  audit_(record);
}

}  // namespace toolgate
