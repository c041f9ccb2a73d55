// Call budgets of one run: how many calls of a tool (its policy's
// max_calls_per_run) and of a side-effect class (settings'
// max_calls_per_run_by_class) the run may still have ALLOWed.
//
// A model turn reserves one call per call it holds, all or none, before
// it is ALLOWed; a reservation whose turn is refused afterwards is given
// back. A turn's calls come as BudgetCharges (plain values with their
// limits), so the same counting can be done by any state store
// (core/state).
//
// Thread-compatible: the run's state store serializes its use (one commit
// per call under the run's lock), so 50 concurrent calls against a budget
// of 3 yield exactly 3.
#ifndef TOOLGATE_CORE_RUN_CALL_BUDGET_H_
#define TOOLGATE_CORE_RUN_CALL_BUDGET_H_

#include <array>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "core/manifest/manifest.h"

namespace toolgate {

// One call of a turn as the budgets count it; a limit of 0 is none.
struct BudgetCharge {
  std::string tool;
  SideEffect side_effect = SideEffect::kRead;
  int tool_limit = 0;   // The tool's policy.max_calls_per_run.
  int class_limit = 0;  // settings.max_calls_per_run_by_class[side_effect].
};

// Whether any call of `tool` counts against a budget under `settings`.
bool HasCallBudget(const ToolSpec& tool, const RunSettings& settings);
// What one call of `tool` counts against under `settings`.
BudgetCharge ChargeOf(const ToolSpec& tool, const RunSettings& settings);

class CallBudget {
 public:
  // Reserves one call for each of `charges` (a turn's calls, in order).
  // Returns -1 when every budget had room, else the index of the first
  // call past its tool's or its class's budget; then nothing is reserved.
  int Reserve(absl::Span<const BudgetCharge> charges);
  // Gives back a reservation Reserve made for exactly these charges.
  void Release(absl::Span<const BudgetCharge> charges);

  // Calls reserved so far for `tool` (tools with a budget only).
  int used(const std::string& tool) const;

 private:
  void Take(const BudgetCharge& charge, int delta);

  std::array<int, 3> class_used_{};  // By SideEffect.
  absl::flat_hash_map<std::string, int> tool_used_;
};

}  // namespace toolgate

#endif  // TOOLGATE_CORE_RUN_CALL_BUDGET_H_
