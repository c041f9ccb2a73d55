// The admin and waiting side of approvals: list them, decide them, wait
// for a decision. (Requesting and consuming an approval happen inside a
// call's commit, atomic with its budgets: run_state_store.h.)
//
// Thread-safety: implementations are safe from any thread; Await blocks
// only its caller.
#ifndef TOOLGATE_CORE_STATE_APPROVAL_LEDGER_H_
#define TOOLGATE_CORE_STATE_APPROVAL_LEDGER_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "core/approval/approval_store.h"

namespace toolgate {
namespace state {

class ApprovalLedger {
 public:
  virtual ~ApprovalLedger() = default;

  // ApprovalStore::List's contract (empty run_id: every run; kUnspecified:
  // every state; oldest first), plus UNAVAILABLE from a shared store.
  virtual absl::StatusOr<std::vector<Approval>> List(absl::string_view run_id,
                                                     ApprovalState state) = 0;

  // ApprovalStore::Decide's contract: NOT_FOUND for an unknown id,
  // FAILED_PRECONDITION once it is not PENDING (deciding twice never flips
  // a decision).
  virtual absl::StatusOr<Approval> Decide(absl::string_view approval_id,
                                          bool approve,
                                          absl::string_view approver,
                                          absl::string_view reason) = 0;

  // ApprovalStore::Await's contract, woken by a decision made anywhere
  // (on any replica sharing the store).
  virtual absl::StatusOr<ApprovalState> Await(
      absl::string_view run_id, absl::string_view approval_id,
      absl::Duration timeout, const std::function<bool()>& cancelled) = 0;
};

// The memory store's: the process's ApprovalStore.
class MemoryApprovalLedger : public ApprovalLedger {
 public:
  explicit MemoryApprovalLedger(ApprovalStore& store) : store_(store) {}

  absl::StatusOr<std::vector<Approval>> List(absl::string_view run_id,
                                             ApprovalState state) override {
    return store_.List(run_id, state);
  }
  absl::StatusOr<Approval> Decide(absl::string_view approval_id, bool approve,
                                  absl::string_view approver,
                                  absl::string_view reason) override {
    return store_.Decide(approval_id, approve, approver, reason);
  }
  absl::StatusOr<ApprovalState> Await(
      absl::string_view run_id, absl::string_view approval_id,
      absl::Duration timeout,
      const std::function<bool()>& cancelled) override {
    return store_.Await(run_id, approval_id, timeout, cancelled);
  }

 private:
  ApprovalStore& store_;
};

}  // namespace state
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STATE_APPROVAL_LEDGER_H_
