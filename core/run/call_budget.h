// Call budgets of one run: how many calls of a tool (its policy's
// max_calls_per_run) and of a side-effect class (settings'
// max_calls_per_run_by_class) the run may still have ALLOWed.
//
// A model turn reserves one call per call it holds, all or none, before
// it is ALLOWed; a reservation whose turn is refused afterwards is given
// back. So 50 concurrent calls against a budget of 3 yield exactly 3.
//
// Thread-safety: internally synchronized.
#ifndef TOOLGATE_CORE_RUN_CALL_BUDGET_H_
#define TOOLGATE_CORE_RUN_CALL_BUDGET_H_

#include <array>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "core/manifest/manifest.h"

namespace toolgate {

// Whether any call of `tool` counts against a budget under `settings`.
bool HasCallBudget(const ToolSpec& tool, const RunSettings& settings);

class CallBudget {
 public:
  explicit CallBudget(const RunSettings& settings);

  // Reserves one call for each of `tools` (a turn's calls, in order).
  // Returns -1 when every budget had room, else the index of the first
  // call past its tool's or its class's budget; then nothing is reserved.
  int Reserve(absl::Span<const ToolSpec* const> tools);
  // Gives back a reservation Reserve made for exactly these tools.
  void Release(absl::Span<const ToolSpec* const> tools);

  // Calls reserved so far for `tool` (tools with a budget only).
  int used(const std::string& tool) const;

 private:
  // The class limit of `side_effect`, or 0 for none.
  int ClassLimit(SideEffect side_effect) const;
  void Take(const ToolSpec& tool, int delta) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  std::array<int, 3> class_limits_{};  // By SideEffect; 0: no budget.
  mutable absl::Mutex mu_;
  std::array<int, 3> class_used_ ABSL_GUARDED_BY(mu_){};
  absl::flat_hash_map<std::string, int> tool_used_ ABSL_GUARDED_BY(mu_);
};

}  // namespace toolgate

#endif  // TOOLGATE_CORE_RUN_CALL_BUDGET_H_
