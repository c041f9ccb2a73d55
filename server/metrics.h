// Prometheus metrics of the sidecar (--metrics_listen=HOST:PORT serves
// /metrics through prometheus-cpp's pull exposer).
//
// Everything is read from what each RPC returned (status, decision,
// violation codes, repairs, loop state) and from the request's size: no
// decision is made or changed here. Label values come from closed sets only
// (the RPC names, the decision enums and the mesh hook's decision lists
// of docs/mesh.md "Metrics", gRPC status codes, toolgate's
// documented violation codes and repair names; anything else is "other"):
// a tool name or a model string from a request never becomes a label, so a
// caller cannot grow the number of series.
//
// Every labelled child is created up front, so the hot path only touches
// atomics (counters) and one short mutex per histogram child.
//
// Thread-safety: all methods may be called concurrently.
#ifndef TOOLGATE_SERVER_METRICS_H_
#define TOOLGATE_SERVER_METRICS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "core/engine/engine.h"
#include "grpcpp/support/status.h"
#include "prometheus/counter.h"
#include "prometheus/exposer.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "server/metrics_calls.h"
#include "server/metrics_scraped.h"
#include "server/process_metrics.h"
#include "server/call_streams.h"
#include "toolgate/v1/toolgate.pb.h"

namespace toolgate {
namespace server {

// What one mesh call (ext_authz.Check, ext_proc.Process) decided, read by
// the Envoy adapters from the engine's answers (server/envoy_authz.h,
// server/envoy_ext_proc.h). `decision` is a value of DecisionNames(rpc)
// (a constant, never request text); empty: the call decided nothing.
struct MeshOutcome {
  absl::string_view decision;
  std::vector<std::string> violations;  // Codes, as the engine returned.
  std::vector<std::string> repairs;
  std::string run_id;           // The run the call belonged to, or "".
  bool breaker_opened = false;  // A call of it opened the run's breaker.
  bool read_only = false;       // The run's kill switch is on.
};

class ServerMetrics {
 public:
  // The RPCs that get labels: toolgate.v1's in proto order (metrics_test
  // checks that every registered RPC is one of them), then Envoy's
  // "ext_authz.Check" and "ext_proc.Process", then "mcp.stdio".
  static const std::vector<std::string>& RpcNames();
  // The `decision` label values of `rpc`, "other" last; empty for RPCs
  // that decide nothing.
  static std::vector<std::string> DecisionNames(absl::string_view rpc);
  // Whether a REJECT answer in a run used its last attempt (the breaker
  // opened); the STOPs after it do not count again.
  static bool OpensBreaker(bool in_run, bool reject, int attempt,
                           int attempts_left) {
    return in_run && reject && attempt > 0 && attempts_left == 0;
  }
  // Violation codes and repair names that are label values as they are.
  static bool IsKnownViolationCode(absl::string_view code);
  static bool IsKnownRepair(absl::string_view kind);

  // Metrics without an endpoint (tests read them through Collect()).
  // `engine` and `streams` (not owned, must outlive this; `streams` may be
  // null: its gauges stay 0) feed the gauges.
  explicit ServerMetrics(const Engine* engine,
                         const CallStreams* streams = nullptr);
  // Metrics served on `listen` (HOST:PORT); INVALID_ARGUMENT for an address
  // that cannot be bound.
  static absl::StatusOr<std::unique_ptr<ServerMetrics>> Serve(
      const std::string& listen, const Engine* engine,
      const CallStreams* streams = nullptr);
  ~ServerMetrics();

  // The index of `rpc` in RpcNames(), or -1.
  static int RpcSlot(absl::string_view rpc);
  // The slot a request is counted under: the MCP stdio gateway's calls
  // (mcp_request_id set) under "mcp.stdio", everything else under `slot`,
  // its RPC's.
  static int SlotFor(const v1::ValidateToolCallRequest& request, int slot);
  static int SlotFor(const v1::ValidateToolOutputRequest& request, int slot);
  template <typename Request>
  static int SlotFor(const Request&, int slot) {
    return slot;
  }

  // One finished call of RPC `slot`: its status, how long it took from the
  // request's arrival, and the request's size on the wire.
  void Finished(int slot, const grpc::Status& status, double seconds,
                size_t input_bytes);

  // What a successful call decided. Run-ending calls forget the run's kill
  // switch state. Other RPCs decide nothing.
  void Decided(const v1::ValidateToolCallRequest& request,
               const v1::ValidateToolCallResponse& response);
  // ValidateToolCallStream's decision, for the run its header named.
  void DecidedStream(const std::string& run_id,
                     const v1::ValidateToolCallResponse& response);
  void Decided(const v1::ExtractVerdictRequest& request,
               const v1::ExtractVerdictResponse& response);
  void Decided(const v1::ValidateToolOutputRequest& request,
               const v1::ValidateToolOutputResponse& response);
  void Decided(const v1::CloseRunRequest& request,
               const v1::CloseRunResponse& response);
  void Decided(const v1::ResetRunRequest& request,
               const v1::ResetRunResponse& response);
  void Decided(const v1::DecideApprovalRequest& request,
               const v1::DecideApprovalResponse& response);
  template <typename Request, typename Response>
  void Decided(const Request&, const Response&) {}
  // A mesh call's outcome, for RPC `slot` ("ext_authz.Check" or
  // "ext_proc.Process"). Nothing for an empty decision.
  void DecidedMesh(int slot, const MeshOutcome& outcome);

  // The exposition's families with the gauges refreshed (what a scrape
  // sees).
  std::vector<prometheus::MetricFamily> Collect() const;

  // Tracing's span counters (toolgate_spans_*_total); null: tracing off.
  // Before serving; not owned.
  void set_tracer(const trace::Tracer* tracer) { scraped_->set_tracer(tracer); }

  // Where other components register their families (before serving).
  prometheus::Registry& registry() { return *registry_; }

  // How many run ids the kill-switch set holds (tests check it is bounded).
  size_t read_only_runs_held() const;

 private:
  class Scrape;
  prometheus::Counter& Decision(int slot, absl::string_view name);
  void CountViolation(absl::string_view code);
  void CountRepair(absl::string_view kind);
  void DecidedCall(int slot, const std::string& run_id,
                   const v1::ValidateToolCallResponse& response);
  // Counts a kill-switch trip the first time `run_id` is seen read-only.
  void NoteReadOnly(const std::string& run_id);
  void ForgetEndedRuns() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Engine* const engine_;
  const CallStreams* const streams_;
  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<Scrape> scrape_;
  std::unique_ptr<prometheus::Exposer> exposer_;

  // Per RPC slot.
  std::vector<prometheus::Histogram*> duration_;
  std::vector<prometheus::Histogram*> input_bytes_;
  std::vector<std::array<prometheus::Counter*, 17>> errors_;  // By code.
  // Per RPC slot: its decision names (at most 9) and their counters.
  std::vector<std::vector<std::pair<std::string, prometheus::Counter*>>>
      decisions_;
  absl::flat_hash_map<std::string, prometheus::Counter*> violations_;
  absl::flat_hash_map<std::string, prometheus::Counter*> repairs_;
  prometheus::Counter* breaker_opened_ = nullptr;
  prometheus::Counter* kill_switch_trips_ = nullptr;
  prometheus::Counter* snapshots_evicted_ = nullptr;
  prometheus::Gauge* snapshots_ = nullptr;
  prometheus::Gauge* open_runs_ = nullptr;
  prometheus::Gauge* call_streams_ = nullptr;
  prometheus::Gauge* call_stream_bytes_ = nullptr;
  std::unique_ptr<CallMetrics> calls_;
  std::unique_ptr<ScrapedMetrics> scraped_;
  std::shared_ptr<ProcessMetrics> process_;

  // Runs seen read-only, so that a trip counts once: a run stays read-only
  // (every output call says so) until ResetRun, CloseRun or expiry. Bounded
  // by twice the open read-only runs: ResetRun and CloseRun erase theirs,
  // expired runs go when the set doubles (ForgetEndedRuns).
  static constexpr size_t kMinForgetAt = 64;
  mutable absl::Mutex mu_;
  absl::flat_hash_set<std::string> read_only_runs_ ABSL_GUARDED_BY(mu_);
  size_t forget_at_ ABSL_GUARDED_BY(mu_) = kMinForgetAt;
  // The store's eviction count the counter last caught up with.
  mutable uint64_t evicted_seen_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_METRICS_H_
