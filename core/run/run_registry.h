// Runs: one agent run pins one snapshot and carries the run's repair-loop
// breaker and its tool-output kill switch.
//
// A run is opened against a snapshot and is named by run_id; every
// run-scoped call must also present the run_token handed out at OpenRun. A
// wrong token is PERMISSION_DENIED, never "no run": a caller that could
// drop to stateless mode by garbling the token would skip the breaker.
//
// Thread-safety: RunRegistry and Run are internally synchronized.
#ifndef TOOLGATE_CORE_RUN_RUN_REGISTRY_H_
#define TOOLGATE_CORE_RUN_RUN_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/extract/text_format.h"
#include "core/output/health_window.h"
#include "core/policy/secret_checks.h"
#include "core/run/call_budget.h"
#include "core/run/protected_texts.h"
#include "core/run/run_directory.h"
#include "core/snapshot/snapshot.h"

namespace toolgate {

// Where a run's repair loop stands after a decision.
struct LoopState {
  int attempt = 0;        // Consecutive rejects so far, this one included.
  int attempts_left = 0;  // Rejects left before the breaker opens.
  bool breaker_open = false;
};

// A run keeps its model and context for its whole life, so both are
// bounded; OpenRun beyond any of these is INVALID_ARGUMENT.
inline constexpr size_t kMaxModelBytes = 256;
inline constexpr size_t kMaxContextEntries = 32;
inline constexpr size_t kMaxContextKeyBytes = 128;
inline constexpr size_t kMaxContextValueBytes = 1024;
inline constexpr size_t kMaxContextBytes = 4096;  // All keys and values.
// OpenRunRequest.protected_texts: indexed by every 32-byte window (~17 heap
// bytes per byte; core/policy/secret_checks.h), one index per distinct set
// of texts however many runs carry it (core/run/protected_texts.h).
inline constexpr size_t kMaxProtectedTexts = 16;
inline constexpr size_t kMaxProtectedTextBytes = 32 * 1024;  // All of them.

// Per-run settings; 0 takes the snapshot's setting.
struct RunLimits {
  int max_consecutive_rejects = 0;
  int kill_switch_threshold = 0;
  int kill_switch_window = 0;
  // The call syntax of the run's model family (core/extract/text_format.h):
  // the run's text outputs are read in it.
  extract::TextFormat text_format = extract::TextFormat::kUnspecified;
};

// What a run's decisions change: its repair loop, its kill switch and its
// call budgets. In the memory state store (core/state) it lives in the
// Run, under the run's lock; the store changes it in one step per call.
// Thread-compatible.
struct RunState {
  int consecutive_rejects = 0;
  bool breaker_open = false;
  output::OutputHealthWindow health;
  CallBudget budget;

  explicit RunState(output::OutputHealthWindow window)
      : health(std::move(window)) {}
  // Where the loop stands, for a run allowing `max_rejects` rejects in a
  // row. A reject (unparseable and invalid alike) counts toward the
  // breaker; an allow resets the count. Once the count reaches the limit
  // the breaker stays open until Reset().
  LoopState Loop(int max_rejects) const;
  LoopState RecordReject(int max_rejects);
  LoopState RecordAllow(int max_rejects);
  // Closes the breaker and clears the kill switch (budgets are kept).
  void Reset();
};

class Run {
 public:
  Run(std::string id, std::shared_ptr<const Snapshot> snapshot,
      std::string model, std::map<std::string, std::string> context,
      int max_consecutive_rejects, output::OutputHealthWindow health,
      std::shared_ptr<const policy::LeakDetector> leaks = nullptr,
      extract::TextFormat text_format = extract::TextFormat::kUnspecified);

  const std::string& id() const { return id_; }
  const Snapshot& snapshot() const { return *snapshot_; }
  const std::shared_ptr<const Snapshot>& snapshot_ptr() const {
    return snapshot_;
  }
  const std::string& model() const { return model_; }
  const std::map<std::string, std::string>& context() const { return context_; }
  // The run's protected texts, for argument_leak; null when none.
  const policy::LeakDetector* leaks() const { return leaks_.get(); }
  int max_consecutive_rejects() const { return max_rejects_; }
  // How the run's text outputs are written (OpenRunRequest.text_format).
  extract::TextFormat text_format() const { return text_format_; }

  // Runs `fn(RunState&)` under the run's lock and returns what it returns:
  // the one way the memory state store changes the run, so each change is
  // atomic however many calls of the run arrive together.
  template <typename Fn>
  auto WithState(Fn&& fn) {
    absl::MutexLock lock(&mu_);
    return fn(state_);
  }

  // Single reads and changes, each atomic on its own.
  LoopState Current() const;
  LoopState RecordReject();
  LoopState RecordAllow();
  // Records a tool output's verdict in the kill-switch window; returns
  // whether the run is now read-only (latched until Reset()).
  bool RecordOutput(output::OutputVerdict verdict);
  bool read_only() const;
  // Calls of `tool` its budget has counted (tools with a budget only).
  int calls_used(const std::string& tool) const;
  void Reset();

  // AwaitApproval calls of this run waiting now: BeginWait counts one more
  // unless `max` already wait (false: refuse the call); every true must be
  // matched by one EndWait.
  bool BeginWait(int max);
  void EndWait();
  int waits() const;

 private:
  const std::string id_;
  const std::shared_ptr<const Snapshot> snapshot_;
  const std::string model_;
  const std::map<std::string, std::string> context_;
  const int max_rejects_;
  const std::shared_ptr<const policy::LeakDetector> leaks_;
  const extract::TextFormat text_format_;

  mutable absl::Mutex mu_;
  RunState state_ ABSL_GUARDED_BY(mu_);
  int waits_ ABSL_GUARDED_BY(mu_) = 0;
};

struct OpenedRun {
  std::shared_ptr<Run> run;
  std::string token;  // Handed to the caller once; only its hash is kept.
};

struct RunRegistryOptions {
  size_t max_runs = 100000;
  // Open runs per tenant (OpenRun context["tenant"]; absent or empty is the
  // tenant "").
  size_t max_runs_per_tenant = 10000;
  // A run not used (opened, authorized for a call) for this long is closed.
  absl::Duration idle_ttl = absl::Hours(1);
  // Where time comes from; null: a coarse monotonic clock (tests inject).
  std::function<absl::Time()> now;
  // Bytes of the protected-text indexes of all open runs together
  // (--max_protected_text_bytes); each distinct set counts once.
  size_t max_protected_text_bytes = kDefaultMaxProtectedTextBytes;
};

// The key of OpenRun's context that names the tenant.
inline constexpr char kTenantContextKey[] = "tenant";

// Open runs, bounded in number overall and per tenant, and closed once idle.
//
// Expired runs are refused at once (NOT_FOUND, as closed runs) and removed
// by Sweep, which Open calls at most about once a second (and the server
// periodically): the hot path only reads the clock and stamps the run.
// Every open run pins its snapshot in `pins` (when given) from Open until
// Close or expiry.
//
// Thread-safety: internally synchronized. Calls into `pins` may happen with
// the registry's lock held (lock order: registry, then store).
class RunRegistry : public RunDirectory {
 public:
  // `pins`, when not null, must outlive the registry.
  explicit RunRegistry(RunRegistryOptions options = {},
                       SnapshotStore* pins = nullptr);

  // INVALID_ARGUMENT for limits out of range (breaker 1..1000; kill switch
  // 1 <= threshold <= window <= 1000) and for a model, context or
  // protected texts over the caps above; RESOURCE_EXHAUSTED past max_runs,
  // the tenant's cap or the protected-text budget; NOT_FOUND if `pins` no
  // longer holds the snapshot.
  absl::StatusOr<OpenedRun> Open(
      std::shared_ptr<const Snapshot> snapshot, absl::string_view model,
      std::map<std::string, std::string> context, RunLimits limits,
      std::vector<std::string> protected_texts = {}) override;

  // NOT_FOUND for an unknown, closed or expired run, PERMISSION_DENIED for
  // a token that does not match, INVALID_ARGUMENT for an empty one. Marks
  // the run used.
  absl::StatusOr<std::shared_ptr<Run>> Authorize(
      absl::string_view run_id, absl::string_view token) const override;

  absl::Status Close(absl::string_view run_id,
                     absl::string_view token) override;

  // Closes every run idle for idle_ttl; returns how many. SweepIfDue does
  // so only if the last sweep is a second (or idle_ttl, if shorter) old.
  size_t Sweep() override;
  size_t SweepIfDue();

  // Whether `run_id` names a run still open (not expired).
  bool IsOpen(absl::string_view run_id) const;

  size_t size() const;
  // Bytes accounted to protected-text indexes (all runs, each distinct set
  // once); they return when the last run holding a set is gone.
  size_t protected_text_bytes() const { return protected_texts_.bytes(); }
  size_t protected_text_sets() const { return protected_texts_.tables(); }

 private:
  struct Entry {
    std::shared_ptr<Run> run;
    std::string token_hash;
    std::string tenant;
    mutable absl::Time last_used;
  };
  using EntryMap = std::map<std::string, Entry, std::less<>>;

  absl::Time Now() const;
  absl::Status CheckCaps(const std::string& tenant) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Remove(EntryMap::iterator it) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  size_t SweepLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const RunRegistryOptions options_;
  SnapshotStore* const pins_;
  ProtectedTextStore protected_texts_;
  mutable absl::Mutex mu_;
  EntryMap runs_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, size_t> per_tenant_ ABSL_GUARDED_BY(mu_);
  absl::Time last_sweep_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

}  // namespace toolgate

#endif  // TOOLGATE_CORE_RUN_RUN_REGISTRY_H_
