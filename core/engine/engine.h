// Engine: toolgate's RPCs as plain C++ over the core components.
//
// The gRPC server is a thin adapter over this class: it converts each proto
// request into these structs, calls the Engine, and converts back. Keeping
// the decision logic here keeps it testable without a network and usable
// from other front ends (the CLI, an Envoy filter).
//
// Errors a caller made (unknown snapshot, wrong run token, no output given)
// are absl::Status; decisions about model output are values, and only
// DECISION ALLOW lets a call run.
//
// Thread-safety: all methods may be called concurrently.
#ifndef TOOLGATE_CORE_ENGINE_ENGINE_H_
#define TOOLGATE_CORE_ENGINE_ENGINE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/engine/schema_cache.h"
#include "core/gate/gate.h"
#include "core/output/output.h"
#include "core/run/run_registry.h"
#include "core/snapshot/snapshot.h"
#include "core/util/cancel.h"
#include "core/verdict/verdict.h"

namespace toolgate {

struct EngineOptions {
  JsonLimits limits;  // Size cap and depth for every input.
  size_t max_snapshots = 1024;
  size_t max_runs = 100000;
  size_t max_violations_per_call = 20;
  // An output with more tool calls is one too_many_calls violation.
  size_t max_calls_per_output = 64;
  // Byte budget of the compiled inline result_schema cache (0: no cache).
  size_t result_schema_cache_bytes = 64 << 20;
  // A ListSnapshots page ends once its entries hold about this many bytes.
  size_t snapshot_page_bytes = 1 << 20;
};

// ListSnapshots pages: page_size 0 means the default, more than the
// maximum is the maximum; a page also ends once its entries hold about
// EngineOptions::snapshot_page_bytes (it always holds at least one), so
// that a page fits a default client's 4 MiB receive limit.
inline constexpr int kDefaultSnapshotPageSize = 100;
inline constexpr int kMaxSnapshotPageSize = 1000;

// Audit lines echo only bounded text: each tool name is cut to
// kMaxToolNameBytes (marked "..."); tools and codes list at most this many
// entries, then one "+N more".
inline constexpr size_t kAuditMaxListed = 64;

enum class OutputKind { kUnset, kText, kNative };

struct ValidateCallRequest {
  std::string snapshot_id;
  std::string run_id;
  std::string run_token;
  OutputKind kind = OutputKind::kUnset;
  // Not owned: must outlive the call (the server points it at the proto).
  absl::string_view output;
  bool syntax_repair = false;
  // Cancelled or past its deadline: CANCELLED / DEADLINE_EXCEEDED, no
  // decision, nothing counted toward the run's breaker.
  CancelToken cancel;
};

struct CallReport {
  std::string id;
  std::string name;
  std::string arguments_json;  // Canonical; empty when unreadable.
  std::vector<std::string> repairs;
  std::string source;
  int candidates_seen = 0;
};

struct ValidateCallResponse {
  Decision decision = Decision::kReject;
  std::vector<CallReport> calls;
  std::vector<Violation> violations;
  std::string repair_prompt;
  int attempt = 0;
  int attempts_left = 0;
  std::string stop_reason;
  std::string audit_id;
  std::string snapshot_id;
};

struct ValidateOutputRequest {
  std::string snapshot_id;
  std::string run_id;
  std::string run_token;
  std::string tool_name;
  std::string content_type;
  int http_status = 0;     // output::kNoHttpStatus for non-HTTP tools.
  absl::string_view body;  // Not owned.
  output::OutputMode mode = output::OutputMode::kUnspecified;
  // As in ValidateCallRequest; nothing counts toward the kill switch.
  CancelToken cancel;
};

struct ValidateOutputResponse {
  output::OutputResult result;
  bool read_only = false;  // The run's kill switch is on.
  std::string audit_id;
};

struct VerdictRequest {
  // Optional: tie the verdict to a snapshot or a run (audit only).
  std::string snapshot_id;
  std::string run_id;
  std::string run_token;
  std::string envelope;
  std::string result_schema;  // Inline JSON Schema; "" = the default.
  bool syntax_repair = false;
  CancelToken cancel;  // As in ValidateCallRequest.
};

struct SnapshotPage {
  std::vector<std::shared_ptr<const Snapshot>> snapshots;  // In id order.
  std::string next_page_token;  // Empty on the last page.
};

struct VerdictResponse {
  verdict::VerdictResult result;
  std::string audit_id;
};

// One line of the audit trail: what was decided, never argument values.
struct AuditRecord {
  std::string audit_id;
  std::string rpc;
  std::string snapshot_id;
  std::string run_id;
  std::string decision;
  std::string stop_reason;
  std::vector<std::string> tools;
  std::vector<std::string> codes;
};

using AuditSink = std::function<void(const AuditRecord&)>;

class Engine {
 public:
  explicit Engine(EngineOptions options = {}, AuditSink audit = nullptr);

  // `rule` says who may point `name` at the new snapshot (see NameRule);
  // the default is the least privileged one.
  absl::StatusOr<std::shared_ptr<const Snapshot>> CreateSnapshot(
      absl::string_view manifest_json, ManifestFormat format,
      absl::string_view name, NameRule rule = NameRule::kClaim,
      const CancelToken& cancel = CancelToken());
  // By id, or by name when id is empty.
  absl::StatusOr<std::shared_ptr<const Snapshot>> GetSnapshot(
      absl::string_view id, absl::string_view name) const;
  // One page of snapshots in id order. The token is opaque to callers: it
  // names the last snapshot of the previous page, so snapshots created
  // between pages never shift or repeat the ones already listed.
  // INVALID_ARGUMENT for a negative page_size or a token not from here.
  absl::StatusOr<SnapshotPage> ListSnapshots(
      int page_size, absl::string_view page_token) const;

  absl::StatusOr<OpenedRun> OpenRun(absl::string_view snapshot_id,
                                    absl::string_view model,
                                    std::map<std::string, std::string> context,
                                    RunLimits limits);
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

  const EngineOptions& options() const { return options_; }
  const SchemaCache& result_schema_cache() const { return result_schemas_; }
  // For the server's gauges (toolgate_snapshots, toolgate_open_runs).
  size_t snapshot_count() const { return snapshots_.size(); }
  size_t open_run_count() const { return runs_.size(); }

 private:
  struct Target {
    std::shared_ptr<const Snapshot> snapshot;
    std::shared_ptr<Run> run;  // Null in stateless mode.
  };
  // The RPC bodies; the public methods run them with exceptions turned
  // into INTERNAL (a deny for every client), so none escapes the engine.
  absl::StatusOr<ValidateCallResponse> DoValidateToolCall(
      const ValidateCallRequest& request);
  absl::StatusOr<ValidateOutputResponse> DoValidateToolOutput(
      const ValidateOutputRequest& request);
  absl::StatusOr<VerdictResponse> DoExtractVerdict(
      const VerdictRequest& request);

  absl::StatusOr<Target> ResolveTarget(absl::string_view snapshot_id,
                                       absl::string_view run_id,
                                       absl::string_view run_token) const;
  RawCalls ReadCalls(const ValidateCallRequest& request) const;
  static void ApplyKillSwitch(const Run& run, const GateResult& gate,
                              ValidateCallResponse* response);
  void ApplyLoop(Run* run, ValidateCallResponse* response) const;
  absl::StatusOr<std::string> NewAuditId() const;
  void AuditCall(const ValidateCallResponse& response,
                 const Target& target) const;
  void Audit(AuditRecord record, const Target& target) const;

  // Inline result schemas compile once and are reused while they fit the
  // cache's byte budget.
  absl::StatusOr<std::shared_ptr<const schema::Schema>> ResultSchema(
      absl::string_view json);

  const EngineOptions options_;
  const AuditSink audit_;
  // Audit ids are this engine's random prefix plus a counter: unique across
  // replicas without drawing from the system RNG on every call.
  const absl::StatusOr<std::string> audit_prefix_;
  mutable std::atomic<uint64_t> audit_counter_{0};
  SnapshotStore snapshots_;
  RunRegistry runs_;
  SchemaCache result_schemas_;
};

}  // namespace toolgate

#endif  // TOOLGATE_CORE_ENGINE_ENGINE_H_
