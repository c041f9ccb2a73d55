#include "server/metrics.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "absl/strings/str_cat.h"
#include "prometheus/collectable.h"
#include "prometheus/family.h"

namespace toolgate {
namespace server {

namespace {

constexpr std::array<const char*, 17> kGrpcCodes = {"OK",
                                                    "CANCELLED",
                                                    "UNKNOWN",
                                                    "INVALID_ARGUMENT",
                                                    "DEADLINE_EXCEEDED",
                                                    "NOT_FOUND",
                                                    "ALREADY_EXISTS",
                                                    "PERMISSION_DENIED",
                                                    "RESOURCE_EXHAUSTED",
                                                    "FAILED_PRECONDITION",
                                                    "ABORTED",
                                                    "OUT_OF_RANGE",
                                                    "UNIMPLEMENTED",
                                                    "INTERNAL",
                                                    "UNAVAILABLE",
                                                    "DATA_LOSS",
                                                    "UNAUTHENTICATED"};

// Violation codes of docs/contract.md "Violation codes", "ValidateToolOutput" and
// "ExtractVerdict": the closed set a label may take.
const absl::flat_hash_set<std::string>& KnownCodes() {
  static const auto* codes = new absl::flat_hash_set<std::string>{
      // ValidateToolCall.
      "unknown_tool", "too_many_calls", "too_many_violations",
      "invalid_arguments", "kill_switch_read_only", "duplicate_key",
      "invalid_json", "truncated_json", "empty_input", "nesting_too_deep",
      "number_out_of_range", "number_inexact", "input_too_large",
      "empty_arguments", "arguments_not_object", "missing_arguments",
      "malformed_tool_call", "unrecognized_output", "ambiguous_output",
      "trailing_code_block", "no_tool_call", "truncated_output",
      "not_a_tool_call", "evaluation_limit",
      // ValidateToolCall, streamed output (docs/streaming.md).
      "stream_error", "truncated_stream", "malformed_stream",
      // ValidateToolCall, policy stages (docs/policy.md).
      "parallel_not_allowed", "binding_context_missing", "binding_mismatch",
      "path_outside_root", "path_invalid", "url_invalid",
      "url_scheme_not_allowed", "url_host_not_allowed", "url_port_not_allowed",
      "url_userinfo", "url_private_address", "shell_metacharacter",
      "option_injection", "identifier_invalid", "text_invalid", "text_too_long",
      "argument_injection", "argument_secret", "argument_leak",
      "approval_pending", "approval_denied", "approval_expired",
      "approval_used", "approval_mismatch", "call_budget_exhausted",
      // ValidateToolOutput.
      "http_status", "content_type", "output_too_large", "markup_body",
      "invalid_utf8", "mcp_malformed_result", "mcp_is_error",
      "error_in_success_wrapper", "error_status", "markup_in_string",
      "missing_structured_content", "output_schema",
      // ExtractVerdict.
      "no_result_block", "unclosed_result_block", "unclosed_reasoning",
      "result_block_not_last", "empty_result_block", "truncated_result_block",
      "unparseable_result_block", "result_block_invalid", "envelope_too_large"};
  return *codes;
}

// repair.h's stable repair names.
const absl::flat_hash_set<std::string>& KnownRepairs() {
  static const auto* kinds = new absl::flat_hash_set<std::string>{
      "trailing_comma", "single_quotes", "python_literal",    "smart_quotes",
      "unquoted_key",   "comment",       "control_character", "markdown_fence"};
  return *kinds;
}

// Decision latencies are sub-millisecond to a few ms; the upper buckets
// catch the worst accepted schemas and a starved machine.
prometheus::Histogram::BucketBoundaries DurationBuckets() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
          0.05,   0.1,     0.25,   0.5,   1.0,    2.5,   5.0,  10.0};
}

// 64 B .. 16 MiB by 4x: the default input cap (200,000 bytes) falls
// between 64 KiB and 256 KiB.
prometheus::Histogram::BucketBoundaries ByteBuckets() {
  prometheus::Histogram::BucketBoundaries b;
  for (double v = 64; v <= 16 * 1024 * 1024; v *= 4) b.push_back(v);
  return b;
}

}  // namespace

// What the exposer serves: the registry, with the gauges read from the
// engine at scrape time (they cost nothing between scrapes).
class ServerMetrics::Scrape final : public prometheus::Collectable {
 public:
  explicit Scrape(const ServerMetrics* metrics) : metrics_(metrics) {}
  std::vector<prometheus::MetricFamily> Collect() const override {
    return metrics_->Collect();
  }

 private:
  const ServerMetrics* const metrics_;
};

// The decisions each deciding RPC can return, as labels; "other" for an
// enum value this build does not name (the server never sends one). The
// mesh values are docs/mesh.md "Metrics".
std::vector<std::string> ServerMetrics::DecisionNames(absl::string_view rpc) {
  if (rpc == "ValidateToolCall" || rpc == "ValidateToolCallStream") {
    return {"ALLOW", "REJECT", "NEEDS_APPROVAL", "STOP", "other"};
  }
  if (rpc == "ExtractVerdict") {
    return {"PASS", "FAIL", "REFUSED", "CONTRACT_STOP", "other"};
  }
  if (rpc == "ValidateToolOutput") return {"VALID", "INVALID", "other"};
  if (rpc == "ext_authz.Check") {
    return {"ALLOW",      "REJECT",       "NEEDS_APPROVAL",
            "STOP",       "PASS_THROUGH", "DENIED_REQUEST",
            "DENIED_RUN", "ERROR",        "other"};
  }
  if (rpc == "mcp.stdio") {
    return {"ALLOW", "REJECT", "NEEDS_APPROVAL", "STOP",
            "VALID", "INVALID", "other"};
  }
  if (rpc == "ext_proc.Process") {
    return {"VALID", "INVALID", "PASS_THROUGH", "DENIED", "ERROR", "other"};
  }
  return {};
}

const std::vector<std::string>& ServerMetrics::RpcNames() {
  static const auto* names = new std::vector<std::string>{
      "CreateSnapshot", "GetSnapshot", "ListSnapshots", "DeleteSnapshot",
      "OpenRun", "CloseRun", "ResetRun", "ValidateToolCall",
      "ValidateToolCallStream", "ExtractVerdict", "ValidateToolOutput",
      "ListApprovals", "DecideApproval", "AwaitApproval",
      // Envoy's mesh hook (server/envoy_authz.h, server/envoy_ext_proc.h).
      "ext_authz.Check", "ext_proc.Process",
      // The MCP stdio gateway's ValidateToolCall and ValidateToolOutput
      // (requests carrying mcp_request_id; docs/gateway.md).
      "mcp.stdio"};
  return *names;
}

bool ServerMetrics::IsKnownViolationCode(absl::string_view code) {
  return KnownCodes().contains(code);
}

bool ServerMetrics::IsKnownRepair(absl::string_view kind) {
  return KnownRepairs().contains(kind);
}

int ServerMetrics::SlotFor(const v1::ValidateToolCallRequest& request,
                           int slot) {
  static const int mcp = RpcSlot("mcp.stdio");
  return request.mcp_request_id().empty() ? slot : mcp;
}

int ServerMetrics::SlotFor(const v1::ValidateToolOutputRequest& request,
                           int slot) {
  static const int mcp = RpcSlot("mcp.stdio");
  return request.mcp_request_id().empty() ? slot : mcp;
}

int ServerMetrics::RpcSlot(absl::string_view rpc) {
  const auto& names = RpcNames();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == rpc) return static_cast<int>(i);
  }
  return -1;
}

ServerMetrics::ServerMetrics(const Engine* engine, const CallStreams* streams)
    : engine_(engine),
      streams_(streams),
      registry_(std::make_shared<prometheus::Registry>()) {
  using prometheus::BuildCounter;
  using prometheus::BuildGauge;
  using prometheus::BuildHistogram;
  auto& decisions = BuildCounter()
                        .Name("toolgate_decisions_total")
                        .Help("Decisions returned, by RPC and decision.")
                        .Register(*registry_);
  auto& errors = BuildCounter()
                     .Name("toolgate_rpc_errors_total")
                     .Help("Calls that ended with a gRPC error, by code.")
                     .Register(*registry_);
  auto& duration = BuildHistogram()
                       .Name("toolgate_rpc_duration_seconds")
                       .Help("Time from a request's arrival to its answer.")
                       .Register(*registry_);
  auto& input = BuildHistogram()
                    .Name("toolgate_input_bytes")
                    .Help("Request size on the wire, in bytes.")
                    .Register(*registry_);
  for (const std::string& rpc : RpcNames()) {
    duration_.push_back(&duration.Add({{"rpc", rpc}}, DurationBuckets()));
    input_bytes_.push_back(&input.Add({{"rpc", rpc}}, ByteBuckets()));
    errors_.emplace_back();
    errors_.back()[0] = nullptr;  // OK is no error.
    for (size_t c = 1; c < kGrpcCodes.size(); ++c) {
      errors_.back()[c] = &errors.Add({{"rpc", rpc}, {"code", kGrpcCodes[c]}});
    }
    decisions_.emplace_back();
    for (const std::string& d : DecisionNames(rpc)) {
      decisions_.back().emplace_back(
          d, &decisions.Add({{"rpc", rpc}, {"decision", d}}));
    }
  }
  auto& violations = BuildCounter()
                         .Name("toolgate_violations_total")
                         .Help("Violations returned, by code.")
                         .Register(*registry_);
  for (const std::string& code : KnownCodes()) {
    violations_[code] = &violations.Add({{"code", code}});
  }
  violations_["other"] = &violations.Add({{"code", "other"}});
  auto& repairs = BuildCounter()
                      .Name("toolgate_repairs_total")
                      .Help("Syntax repairs applied, by kind.")
                      .Register(*registry_);
  for (const std::string& kind : KnownRepairs()) {
    repairs_[kind] = &repairs.Add({{"kind", kind}});
  }
  repairs_["other"] = &repairs.Add({{"kind", "other"}});
  breaker_opened_ = &BuildCounter()
                         .Name("toolgate_breaker_opened_total")
                         .Help("Runs whose misformat breaker opened.")
                         .Register(*registry_)
                         .Add({});
  kill_switch_trips_ =
      &BuildCounter()
           .Name("toolgate_kill_switch_trips_total")
           .Help("Runs turned read-only by their tool-output kill switch.")
           .Register(*registry_)
           .Add({});
  snapshots_evicted_ =
      &BuildCounter()
           .Name("toolgate_snapshots_evicted_total")
           .Help(
               "Least-recently-used snapshots evicted to make room "
               "(--max_snapshots, --max_snapshot_bytes).")
           .Register(*registry_)
           .Add({});
  snapshots_ = &BuildGauge()
                    .Name("toolgate_snapshots")
                    .Help("Snapshots held.")
                    .Register(*registry_)
                    .Add({});
  open_runs_ = &BuildGauge()
                    .Name("toolgate_open_runs")
                    .Help("Runs open.")
                    .Register(*registry_)
                    .Add({});
  call_streams_ = &BuildGauge()
                       .Name("toolgate_call_streams_open")
                       .Help("ValidateToolCallStream calls open "
                             "(--max_call_streams).")
                       .Register(*registry_)
                       .Add({});
  calls_ = std::make_unique<CallMetrics>(
      *registry_, [engine](const std::string& snapshot_id,
                           const std::string& name) {
        if (engine == nullptr || snapshot_id.empty()) return false;
        auto snapshot = engine->GetSnapshot(snapshot_id, "");
        return snapshot.ok() && (*snapshot)->FindTool(name) != nullptr;
      });
  scraped_ = std::make_unique<ScrapedMetrics>(*registry_);
  process_ = std::make_shared<ProcessMetrics>();
  call_stream_bytes_ =
      &BuildGauge()
           .Name("toolgate_call_stream_held_bytes")
           .Help("Bytes the open ValidateToolCallStream calls hold between "
                 "messages (headers, assembled content, audit events).")
           .Register(*registry_)
           .Add({});
}

ServerMetrics::~ServerMetrics() {
  // Stop serving before the metrics the exposer reads go away.
  exposer_.reset();
}

absl::StatusOr<std::unique_ptr<ServerMetrics>> ServerMetrics::Serve(
    const std::string& listen, const Engine* engine,
    const CallStreams* streams) {
  auto metrics = std::make_unique<ServerMetrics>(engine, streams);
  metrics->scrape_ = std::make_shared<Scrape>(metrics.get());
  try {
    // civetweb throws when it cannot bind; nothing else here throws.
    metrics->exposer_ = std::make_unique<prometheus::Exposer>(listen, 1);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--metrics_listen=", listen, ": cannot serve metrics: ", e.what()));
  }
  metrics->exposer_->RegisterCollectable(metrics->scrape_);
  metrics->exposer_->RegisterCollectable(metrics->process_);
  return metrics;
}

std::vector<prometheus::MetricFamily> ServerMetrics::Collect() const {
  if (streams_ != nullptr) {
    call_streams_->Set(static_cast<double>(streams_->open()));
    call_stream_bytes_->Set(static_cast<double>(streams_->held_bytes()));
  }
  scraped_->Refresh(engine_);
  if (engine_ != nullptr) {
    snapshots_->Set(static_cast<double>(engine_->snapshot_count()));
    open_runs_->Set(static_cast<double>(engine_->open_run_count()));
    // The store counts evictions; the counter follows it at each scrape.
    const uint64_t evicted = engine_->snapshots_evicted();
    absl::MutexLock lock(&mu_);
    if (evicted > evicted_seen_) {
      snapshots_evicted_->Increment(
          static_cast<double>(evicted - evicted_seen_));
      evicted_seen_ = evicted;
    }
  }
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  if (engine_ != nullptr && engine_->has_shared_state()) {
    // Absent, not 0: this replica does not know the store's counts.
    families.erase(
        std::remove_if(families.begin(), families.end(),
                       [](const prometheus::MetricFamily& f) {
                         return f.name == "toolgate_open_runs" ||
                                f.name == "toolgate_approvals_pending";
                       }),
        families.end());
  }
  return families;
}

size_t ServerMetrics::read_only_runs_held() const {
  absl::MutexLock lock(&mu_);
  return read_only_runs_.size();
}

void ServerMetrics::Finished(int slot, const grpc::Status& status,
                             double seconds, size_t input_bytes) {
  if (slot < 0 || slot >= static_cast<int>(duration_.size())) return;
  duration_[slot]->Observe(seconds);
  input_bytes_[slot]->Observe(static_cast<double>(input_bytes));
  const int code = static_cast<int>(status.error_code());
  if (code > 0 && code < static_cast<int>(kGrpcCodes.size())) {
    errors_[slot][code]->Increment();
  } else if (code != 0) {
    errors_[slot][static_cast<int>(grpc::StatusCode::UNKNOWN)]->Increment();
  }
}

prometheus::Counter& ServerMetrics::Decision(int slot, absl::string_view name) {
  auto& known = decisions_[slot];
  for (auto& [d, counter] : known) {
    if (d == name) return *counter;
  }
  return *known.back().second;  // "other".
}

void ServerMetrics::CountViolation(absl::string_view code) {
  auto it = violations_.find(code);
  (it != violations_.end() ? it : violations_.find("other"))
      ->second->Increment();
}

void ServerMetrics::CountRepair(absl::string_view kind) {
  auto it = repairs_.find(kind);
  (it != repairs_.end() ? it : repairs_.find("other"))->second->Increment();
}

void ServerMetrics::Decided(const v1::ValidateToolCallRequest& request,
                            const v1::ValidateToolCallResponse& response) {
  DecidedCall(SlotFor(request, RpcSlot("ValidateToolCall")), request.run_id(),
              response);
}

void ServerMetrics::DecidedStream(
    const std::string& run_id, const v1::ValidateToolCallResponse& response) {
  static const int slot = RpcSlot("ValidateToolCallStream");
  DecidedCall(slot, run_id, response);
}

void ServerMetrics::DecidedCall(int slot, const std::string& run_id,
                                const v1::ValidateToolCallResponse& response) {
  absl::string_view name = v1::Decision_Name(response.decision());
  name.remove_prefix(name.find('_') + 1);  // DECISION_ALLOW -> ALLOW.
  Decision(slot, name).Increment();
  for (const auto& v : response.violations()) CountViolation(v.code());
  for (const auto& call : response.calls()) {
    for (const std::string& r : call.repairs()) CountRepair(r);
  }
  calls_->Count(!run_id.empty(), response);
  // The reject that used the run's last attempt opened its breaker; the
  // calls after it are STOP and do not count again.
  if (OpensBreaker(!run_id.empty(), response.decision() == v1::DECISION_REJECT,
                   response.attempt(), response.attempts_left())) {
    breaker_opened_->Increment();
  }
}

void ServerMetrics::Decided(const v1::ExtractVerdictRequest&,
                            const v1::ExtractVerdictResponse& response) {
  static const int slot = RpcSlot("ExtractVerdict");
  absl::string_view name = v1::Outcome_Name(response.outcome());
  name.remove_prefix(name.find('_') + 1);  // OUTCOME_PASS -> PASS.
  Decision(slot, name).Increment();
  for (const auto& v : response.violations()) CountViolation(v.code());
  for (const std::string& r : response.repairs()) CountRepair(r);
}

void ServerMetrics::Decided(const v1::ValidateToolOutputRequest& request,
                            const v1::ValidateToolOutputResponse& response) {
  const int slot = SlotFor(request, RpcSlot("ValidateToolOutput"));
  absl::string_view name = v1::OutputVerdict_Name(response.verdict());
  name.remove_prefix(name.rfind('_') + 1);  // OUTPUT_VERDICT_VALID -> VALID.
  Decision(slot, name).Increment();
  for (const auto& v : response.violations()) CountViolation(v.code());
  if (response.read_only()) NoteReadOnly(request.run_id());
}

void ServerMetrics::DecidedMesh(int slot, const MeshOutcome& outcome) {
  if (slot < 0 || slot >= static_cast<int>(decisions_.size()) ||
      outcome.decision.empty() || decisions_[slot].empty()) {
    return;
  }
  Decision(slot, outcome.decision).Increment();
  for (const std::string& code : outcome.violations) CountViolation(code);
  for (const std::string& kind : outcome.repairs) CountRepair(kind);
  if (outcome.breaker_opened) breaker_opened_->Increment();
  if (outcome.read_only) NoteReadOnly(outcome.run_id);
}

void ServerMetrics::NoteReadOnly(const std::string& run_id) {
  if (run_id.empty()) return;
  absl::MutexLock lock(&mu_);
  if (read_only_runs_.insert(run_id).second) {
    kill_switch_trips_->Increment();
    ForgetEndedRuns();
  }
}

void ServerMetrics::ForgetEndedRuns() {
  // Runs that expired (or closed by another path) never send CloseRun:
  // drop them whenever the set doubles, so it stays within twice the open
  // read-only runs (amortized O(1) per trip).
  if (engine_ == nullptr || read_only_runs_.size() < forget_at_) return;
  absl::erase_if(read_only_runs_, [this](const std::string& run_id) {
    return !engine_->IsRunOpen(run_id);
  });
  forget_at_ = std::max<size_t>(kMinForgetAt, 2 * read_only_runs_.size());
}

void ServerMetrics::Decided(const v1::CloseRunRequest& request,
                            const v1::CloseRunResponse&) {
  absl::MutexLock lock(&mu_);
  read_only_runs_.erase(request.run_id());
}

void ServerMetrics::Decided(const v1::DecideApprovalRequest&,
                            const v1::DecideApprovalResponse& response) {
  scraped_->Decided(response);
}

void ServerMetrics::Decided(const v1::ResetRunRequest& request,
                            const v1::ResetRunResponse&) {
  absl::MutexLock lock(&mu_);
  read_only_runs_.erase(request.run_id());
}

}  // namespace server
}  // namespace toolgate
