// One ValidateToolCall's change to its run's state, as plain values: what
// the stateless stages found (CallPlan) and what the run's state store
// decided from it in one atomic step (CallOutcome).
//
// Everything a call in a run changes (its repair loop and breaker, an
// approval requested or consumed, its call budgets) is decided together,
// under one lock in the memory store and by one server-side script in a
// shared store, so that concurrent calls of one run (on one replica or
// many) see each other's effects exactly once: an approval is used once, a
// budget of N allows N calls, the breaker opens at the limit.
//
// The rules mirror the pipeline's stages (core/pipeline/run_commit.cc
// turns an outcome back into vetoes, and "decide" then reaches the same
// decision the store recorded):
//   1. breaker open: STOP, nothing else happens;
//   2. the turn is open if the plan is allowable and the kill switch does
//      not veto it (read-only run, a call of a non-read tool);
//   3. an open turn with more than one call needing approval is refused
//      (parallel_not_allowed); one asking for approval gets a PENDING
//      approval (or the identical pending one); one presenting an approval
//      consumes it (APPROVED -> USED) or is refused (approval_*);
//   4. an open turn about to be ALLOWed reserves its budget charges, all
//      or none (a consumed approval is given back when they do not fit);
//   5. the loop: an ALLOW or NEEDS_APPROVAL resets the reject count, a
//      REJECT counts toward the breaker only if the turn was misformatted
//      (the plan says so, or parallel calls were refused).
#ifndef TOOLGATE_CORE_STATE_RUN_COMMIT_H_
#define TOOLGATE_CORE_STATE_RUN_COMMIT_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

#include "core/approval/approval_store.h"
#include "core/gate/gate_result.h"
#include "core/run/call_budget.h"
#include "core/run/run_registry.h"

namespace toolgate {
namespace state {

struct CallPlan {
  // The run_token the call presented (a view of the request's, which
  // outlives the commit): a store that resolved the run without checking
  // it (RunDirectory::AuthorizeAtCommit) checks it here.
  absl::string_view run_token;
  // Allowable(gate) after every stage that needs no run state.
  bool allowable = false;
  // A REJECT of this turn counts toward the breaker: a violation other than
  // the run's own refusals (kill switch, budget, approval_*).
  bool misformat = false;
  // A resolved call's tool is not read-only (the kill switch vetoes it).
  bool has_write = false;
  enum class Approval {
    kNone,      // No call needs approval.
    kParallel,  // More than one does: refused, one per turn.
    kRequest,   // One does and no approval was presented.
    kConsume,   // One does and `approval_id` was presented.
  };
  Approval approval = Approval::kNone;
  std::string approval_id;  // kConsume.
  // The call needing approval: its tool and canonical arguments.
  std::string tool;
  std::string arguments_json;
  // One per call of the turn, in order, when any call has a budget; empty
  // when none has (nothing to count).
  std::vector<BudgetCharge> charges;
};

struct CallOutcome {
  bool stop = false;       // The breaker was open: STOP, nothing changed.
  bool read_only = false;  // The kill switch is latched: write calls vetoed.
  Decision decision = Decision::kReject;  // As "decide" will reach it.
  // kRequest: the pending approval. kConsume: the approval used (empty if
  // it was refused, or given back because the budget did not fit).
  std::string approval_id;
  // kConsume refused: approval_pending, approval_denied, approval_expired,
  // approval_used or approval_mismatch, and why.
  Consumption refused_approval;
  int budget_refused = -1;  // Index of the first call past its budget.
  // Whether the reject count changed (then `loop` is where it stands).
  bool loop_recorded = false;
  LoopState loop;
  // What RefundCall gives back.
  bool approval_consumed = false;
  bool budget_spent = false;
};

}  // namespace state
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STATE_RUN_COMMIT_H_
