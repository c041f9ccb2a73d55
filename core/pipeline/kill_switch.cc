#include "core/pipeline/kill_switch.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace toolgate {
namespace pipeline {
namespace {

Violation ReadOnlyViolation(const Run& run, const ToolSpec& spec,
                            int call_index) {
  Violation v;
  v.code = std::string(kKillSwitchReadOnly);
  v.tool = spec.name;
  v.expected = "a read-only tool";
  v.received = absl::StrCat(SideEffectName(spec.side_effect), " tool");
  v.message = absl::StrCat("run ", run.id(),
                           " is read-only after repeated invalid tool "
                           "outputs; only read tools may run until ResetRun");
  v.call_index = call_index;
  return v;
}

}  // namespace

absl::Status ApplyKillSwitch(CallContext& call) {
  if (call.target.run == nullptr) return call.NotApplicable();
  for (const CheckedCall& c : call.gate.calls) {
    if (c.tool != nullptr && c.tool->spec.side_effect != SideEffect::kRead) {
      call.plan.has_write = true;
    }
  }
  return absl::OkStatus();
}

void VetoWriteCalls(CallContext& call) {
  const Run& run = *call.target.run;
  GateResult& gate = call.gate;
  for (size_t i = 0; i < gate.calls.size(); ++i) {
    const CompiledTool* tool = gate.calls[i].tool;
    if (tool == nullptr || tool->spec.side_effect == SideEffect::kRead) {
      continue;
    }
    gate.vetoes.push_back(
        ReadOnlyViolation(run, tool->spec, static_cast<int>(i)));
    gate.veto_reason = std::string(kKillSwitchReadOnly);
  }
}

}  // namespace pipeline
}  // namespace toolgate
