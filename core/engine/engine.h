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

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "core/gate/gate.h"
#include "core/output/output.h"
#include "core/run/run_registry.h"
#include "core/snapshot/snapshot.h"
#include "core/verdict/verdict.h"

namespace toolgate {

struct EngineOptions {
  JsonLimits limits;  // Size cap and depth for every input.
  size_t max_snapshots = 1024;
  size_t max_runs = 100000;
  size_t max_violations_per_call = 20;
};

enum class OutputKind { kUnset, kText, kNative };

struct ValidateCallRequest {
  std::string snapshot_id;
  std::string run_id;
  std::string run_token;
  OutputKind kind = OutputKind::kUnset;
  // Not owned: must outlive the call (the server points it at the proto).
  absl::string_view output;
  bool syntax_repair = false;
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
      absl::string_view name, NameRule rule = NameRule::kClaim);
  // By id, or by name when id is empty.
  absl::StatusOr<std::shared_ptr<const Snapshot>> GetSnapshot(
      absl::string_view id, absl::string_view name) const;
  std::vector<std::shared_ptr<const Snapshot>> ListSnapshots() const;

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

  // Inline result schemas compile once and are reused; the cache is
  // bounded and simply emptied when full.
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
  absl::Mutex schema_cache_mu_;
  std::map<std::string, std::shared_ptr<const schema::Schema>, std::less<>>
      schema_cache_ ABSL_GUARDED_BY(schema_cache_mu_);
};

}  // namespace toolgate

#endif  // TOOLGATE_CORE_ENGINE_ENGINE_H_
