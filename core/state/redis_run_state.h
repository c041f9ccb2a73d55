// The run state store in Redis (docs/design/state-store.md §3): every
// call's change to its run is one Lua script on the run's keys, so that
// replicas sharing the store count each event exactly once. The run
// itself (its record and token hash) is written by the run directory
// (redis_run_directory.h); this store reads the fields it needs from the
// same hash (redis_layout.h).
//
// Round trips: one per CommitCall, RecordOutput, Reset and RefundCall,
// except a call that creates a new approval (three: the run's commit says
// so, the tenant's and global caps admit it, the commit again). A run
// whose keys are gone (expired, closed, the store flushed) is NOT_FOUND,
// never a fresh run with zeroed counters: the counters live in the same
// hash as the token.
//
// Thread-safety: safe from any thread (the client pools connections).
#ifndef TOOLGATE_CORE_STATE_REDIS_RUN_STATE_H_
#define TOOLGATE_CORE_STATE_REDIS_RUN_STATE_H_

#include <string>
#include <vector>

#include "core/redis/client.h"
#include "core/state/redis_approval_events.h"
#include "core/state/redis_layout.h"
#include "core/state/approval_ledger.h"
#include "core/state/run_state_store.h"

namespace toolgate {
namespace state {

// "apr_" and 32 lower-case hex digits: the ids this store draws; anything
// else is an unknown approval, never a key name.
bool IsApprovalId(absl::string_view id);

struct RedisRunStateOptions {
  std::string key_prefix = "toolgate:";
  absl::Duration approval_ttl = absl::Seconds(900);
  size_t max_approvals = 10000;
  size_t max_pending_per_run = 64;
  size_t max_pending_per_tenant = 1000;
  // Bytes of every approval held, counted as ApprovalBytes counts them.
  size_t max_bytes = size_t{64} << 20;
  absl::Duration keep_after_expiry = absl::Hours(1);
};

class RedisRunState : public RunStateStore {
 public:
  // `client` must outlive the store.
  RedisRunState(redis::Client& client, RedisRunStateOptions options)
      : client_(client), options_(std::move(options)) {}

  // Not known without a round trip: the commit STOPs instead.
  bool BreakerOpenHint(const Run&) const override { return false; }
  absl::StatusOr<CallOutcome> CommitCall(Run& run,
                                         const CallPlan& plan) override;
  void RefundCall(Run& run, const CallPlan& plan,
                  const CallOutcome& outcome) override;
  absl::StatusOr<bool> RecordOutput(Run& run, absl::string_view run_token,
                                    output::OutputVerdict verdict) override;
  absl::Status Reset(Run& run) override;
  absl::StatusOr<bool> BeginWait(Run& run, int max, absl::Duration timeout,
                                 std::string* ticket) override;
  void EndWait(Run& run, const std::string& ticket) override;

  const RedisRunStateOptions& options() const { return options_; }

 private:
  // One EVALSHA of CallCommit; `approval_id` is the presented or new id.
  absl::StatusOr<redis::Reply> Commit(const Run& run, const CallPlan& plan,
                                      const std::string& approval_id,
                                      bool admitted);
  // A new approval: admission against the cross-run caps, then the commit.
  absl::StatusOr<redis::Reply> CommitNewApproval(const Run& run,
                                                 const CallPlan& plan);
  std::vector<std::string> AdmissionKeys(const Run& run,
                                         const std::string& id) const;

  redis::Client& client_;
  const RedisRunStateOptions options_;
};

// The Redis store's approval ledger: approvals live under their run's
// hash tag, found from their id through the {c} index.
class RedisApprovalLedger : public ApprovalLedger {
 public:
  RedisApprovalLedger(redis::Client& client, RedisRunStateOptions options)
      : client_(client),
        options_(std::move(options)),
        events_(client.options().connect,
                redis_layout::EventsChannel(options_.key_prefix)) {}

  absl::StatusOr<std::vector<Approval>> List(absl::string_view run_id,
                                             ApprovalState state) override;
  absl::StatusOr<Approval> Decide(absl::string_view approval_id, bool approve,
                                  absl::string_view approver,
                                  absl::string_view reason) override;
  absl::StatusOr<ApprovalState> Await(
      absl::string_view run_id, absl::string_view approval_id,
      absl::Duration timeout,
      const std::function<bool()>& cancelled) override;

  // The store's events as this replica hears them.
  ApprovalEvents& events() { return events_; }

 private:
  struct Loaded {
    Approval approval;  // Its state as of the server's clock.
    absl::Duration until_expiry;
  };
  absl::StatusOr<Loaded> Load(absl::string_view run_id,
                              absl::string_view approval_id);
  absl::StatusOr<std::vector<std::string>> IdsOf(absl::string_view run_id);

  redis::Client& client_;
  const RedisRunStateOptions options_;
  ApprovalEvents events_;
};

}  // namespace state
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STATE_REDIS_RUN_STATE_H_
