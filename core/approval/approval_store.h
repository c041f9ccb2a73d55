// Approvals: a human's permission for one tool call of one run.
//
// A run's call that needs approval gets a PENDING approval (Request); an
// admin decides it (Decide); the agent waits for the decision (Await) and
// presents the approval's id with the same call again, which then passes
// exactly once (Consume). An approval is bound to (run, tool, canonical
// arguments): anything else presenting it is approval_mismatch.
//
// Fails closed: expiry is read from the clock whenever an approval is
// looked at, so a PENDING or APPROVED (unused) approval past expires_at is
// EXPIRED everywhere even though nothing rewrote it. Memory is bounded: at
// most max_approvals in all holding max_bytes, max_pending_per_run pending
// per run and max_pending_per_tenant pending per tenant (the run's
// context["tenant"]); RESOURCE_EXHAUSTED beyond. A PENDING approval is
// dropped as soon as it expires (Request, List, Decide, Consume and Sweep
// drop every expired one first, so no cap counts it), leaving only a small
// tombstone (id and run) so that the agent still hears "expired", not
// "mismatch"; Sweep, which Request runs at most once a second, drops
// decided approvals long past their expiry or decision.
//
// No gRPC here: the engine and server wrap this store.
#ifndef TOOLGATE_CORE_APPROVAL_APPROVAL_STORE_H_
#define TOOLGATE_CORE_APPROVAL_APPROVAL_STORE_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace toolgate {

enum class ApprovalState {
  kUnspecified,
  kPending,
  kApproved,
  kDenied,
  kExpired,
  kUsed
};

// "PENDING", "APPROVED", ...; "UNSPECIFIED" for anything else.
absl::string_view ApprovalStateName(ApprovalState state);

// A copy handed out; the store keeps its own.
struct Approval {
  std::string approval_id;  // "apr_" and 32 random hex digits: unguessable.
  std::string run_id;
  std::string tool;
  std::string arguments_json;  // Canonical, as given by the caller.
  ApprovalState state = ApprovalState::kUnspecified;
  absl::Time created_at;
  absl::Time expires_at;
  std::map<std::string, std::string> run_context;
  std::string model;
  std::string approver;  // Who decided, and why; empty until decided.
  std::string reason;
  absl::Time decided_at = absl::InfinitePast();  // Until decided.
};

struct ApprovalStoreOptions {
  absl::Duration ttl = absl::Seconds(900);  // --approval_ttl_seconds
  size_t max_approvals = 10000;             // All runs together.
  size_t max_pending_per_run = 64;
  // Pending approvals of all runs of one tenant (context["tenant"] of the
  // run; absent or empty is the tenant "").
  size_t max_pending_per_tenant = 1000;
  // Bytes of all approvals held (ApprovalBytes): arguments can be as large
  // as a request.
  size_t max_bytes = size_t{64} << 20;
  // Where time comes from; null: absl::Now (tests inject).
  std::function<absl::Time()> now;
  // How long Sweep keeps a decided approval past its expiry, or a
  // USED/DENIED one past its decision, and a never-decided one's tombstone
  // past its expiry, so a late List or Consume still gets a precise answer
  // instead of approval_mismatch.
  absl::Duration keep_after_expiry = absl::Hours(1);
};

// What one approval is accounted in ApprovalStoreOptions::max_bytes: its
// run id, tool, arguments, model and context, plus kApprovalOverheadBytes
// (the record itself, its ids and indexes, approver and reason).
inline constexpr size_t kApprovalOverheadBytes = 512;
size_t ApprovalBytes(const Approval& approval);
// The tenant an approval counts against: its run_context["tenant"].
absl::string_view ApprovalTenant(const Approval& approval);

// Why a presented approval does not allow a call: code is empty when it
// does, else approval_pending, approval_denied, approval_expired,
// approval_used or approval_mismatch.
struct Consumption {
  std::string code;
  std::string message;
  bool ok() const { return code.empty(); }
};

// Thread-safety: internally synchronized (one mutex); every method may be
// called from any thread. Await blocks only its caller and holds no lock
// while it waits or calls `cancelled`.
class ApprovalStore {
 public:
  explicit ApprovalStore(ApprovalStoreOptions options = {});
  ApprovalStore(const ApprovalStore&) = delete;
  ApprovalStore& operator=(const ApprovalStore&) = delete;

  // A new PENDING approval bound to (run, tool, arguments), or the run's
  // unexpired PENDING one for exactly this tool and these arguments (a
  // model retrying a call must not flood the approvers). INVALID_ARGUMENT
  // for an empty run_id or tool; RESOURCE_EXHAUSTED past any cap (the
  // message names it); INTERNAL if no random id could be drawn.
  absl::StatusOr<Approval> Request(
      absl::string_view run_id, absl::string_view tool,
      absl::string_view arguments_json,
      const std::map<std::string, std::string>& run_context,
      absl::string_view model);

  // Empty run_id: every run; kUnspecified: every state. Drops expired
  // pending approvals first (they are not listed); decided ones past their
  // expiry show as kExpired. Ordered by created_at, then approval_id.
  std::vector<Approval> List(absl::string_view run_id, ApprovalState state);

  // INVALID_ARGUMENT for an empty approval_id or approver; NOT_FOUND for an
  // unknown id; FAILED_PRECONDITION once it is not PENDING (decided,
  // expired or used): deciding twice never flips a decision.
  absl::StatusOr<Approval> Decide(absl::string_view approval_id, bool approve,
                                  absl::string_view approver,
                                  absl::string_view reason);

  // Blocks until the approval is no longer PENDING, it expires, `timeout`
  // passes or `cancelled` (may be null; asked at least every 100 ms)
  // returns true, and returns its state then (kPending on timeout or
  // cancel). Woken by Decide (a CondVar), not by polling. An approval
  // dropped at expiry is kExpired while its tombstone lasts. NOT_FOUND for
  // an unknown id or another run's approval (the two are
  // indistinguishable).
  absl::StatusOr<ApprovalState> Await(
      absl::string_view run_id, absl::string_view approval_id,
      absl::Duration timeout,
      const std::function<bool()>& cancelled = nullptr) const;

  // Atomically turns an APPROVED, unexpired approval of this run for
  // exactly this tool and these arguments into USED: with any number of
  // concurrent callers, exactly one gets ok(). An unknown id and another
  // run's approval are the same approval_mismatch.
  Consumption Consume(absl::string_view run_id, absl::string_view approval_id,
                      absl::string_view tool, absl::string_view arguments_json);

  // Undoes a Consume that returned ok() (USED back to APPROVED) when the
  // call was refused afterwards for another reason; no-op otherwise.
  void Release(absl::string_view approval_id);

  // Drops pending approvals past their expiry, approvals expired longer
  // than keep_after_expiry ago, and USED or DENIED ones decided longer ago
  // than that; returns how many.
  size_t Sweep();

  size_t size() const;
  // Bytes accounted (ApprovalBytes) for the approvals held.
  size_t bytes() const;
  // Pending approvals held for `tenant` (expired ones until dropped).
  size_t pending_of_tenant(absl::string_view tenant) const;
  // Pending approvals held in all (the toolgate_approvals_pending gauge).
  size_t pending() const;

 private:
  absl::Time Now() const;
  // The approval of `run_id` named `approval_id`, or null.
  const Approval* FindForRun(absl::string_view run_id,
                             absl::string_view approval_id) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The run's unexpired pending approval for exactly (tool, arguments) and
  // how many unexpired pending approvals the run has.
  const Approval* PendingOf(absl::string_view run_id, absl::string_view tool,
                            absl::string_view arguments_json, absl::Time now,
                            size_t* pending) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // RESOURCE_EXHAUSTED when `approval` (not yet held) would pass a cap;
  // `run_pending` is its run's count of pending approvals.
  absl::Status CheckCaps(const Approval& approval, size_t run_pending) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Gives `approval` a fresh random id and stores it.
  absl::StatusOr<Approval> Insert(Approval approval)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Forgets approvals_[it] and its place in every index.
  void Erase(absl::flat_hash_map<std::string, Approval>::iterator it)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Takes a PENDING approval out of the pending indexes (decided, or gone).
  void LeavePending(const Approval& approval)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Drops every PENDING approval past its expiry (tombstoned), and
  // tombstones past keep_after_expiry; returns how many approvals.
  size_t DropExpiredPending(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether `approval_id` of `run_id` was dropped at expiry undecided.
  bool ExpiredUndecided(absl::string_view run_id,
                        absl::string_view approval_id) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // One bounded wait of Await: until any decision, `give_up` or `poll`.
  absl::StatusOr<ApprovalState> WaitOnce(absl::string_view run_id,
                                         absl::string_view approval_id,
                                         absl::Time give_up,
                                         absl::Duration poll) const;
  size_t SweepLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const ApprovalStoreOptions options_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, Approval> approvals_ ABSL_GUARDED_BY(mu_);
  // run_id -> its approval ids, so per-run work does not scan every run.
  absl::flat_hash_map<std::string, absl::flat_hash_set<std::string>> by_run_
      ABSL_GUARDED_BY(mu_);
  // The PENDING approvals by expiry, so that the expired ones are found
  // without a scan, and how many each tenant has.
  std::set<std::pair<absl::Time, std::string>> pending_by_expiry_
      ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, size_t> pending_per_tenant_
      ABSL_GUARDED_BY(mu_);
  size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  // Tombstones of approvals dropped at expiry undecided: id -> run id, and
  // the ids in the order they were dropped (oldest first; at most
  // max_approvals, each kept keep_after_expiry).
  absl::flat_hash_map<std::string, std::string> expired_ ABSL_GUARDED_BY(mu_);
  std::deque<std::pair<absl::Time, std::string>> expired_order_
      ABSL_GUARDED_BY(mu_);
  // Bumped, and changed_ signalled, by every Decide and every Sweep that
  // dropped something. Await waits for a change of this counter rather
  // than holding a pointer into approvals_ (which rehashes and sweeps)
  // while it sleeps, then looks its approval up again.
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
  mutable absl::CondVar changed_;
  absl::Time last_sweep_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

}  // namespace toolgate

#endif  // TOOLGATE_CORE_APPROVAL_APPROVAL_STORE_H_
