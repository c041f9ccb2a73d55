// Stage "policy" (the run's): the kill switch.
//
// Takes call.target.run and the resolved calls in call.gate. When the run
// is read-only (too many invalid tool outputs, see
// Engine::ValidateToolOutput), every call of a write or destructive tool
// is vetoed: one kill_switch_read_only violation each, and Decide then
// rejects the output with that stop_reason, whatever its validity. Read
// tools still run. Nothing happens in stateless mode. It can only refuse,
// never allow.
//
// The stage notes whether the turn calls a non-read tool (call.plan); the
// run's state store reads the kill switch in the run's commit, and the
// commit stage then vetoes with VetoWriteCalls.
#ifndef TOOLGATE_CORE_PIPELINE_KILL_SWITCH_H_
#define TOOLGATE_CORE_PIPELINE_KILL_SWITCH_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/pipeline/call_context.h"

namespace toolgate {
namespace pipeline {

inline constexpr absl::string_view kKillSwitchReadOnly =
    "kill_switch_read_only";

absl::Status ApplyKillSwitch(CallContext& call);

// One kill_switch_read_only veto per call of a non-read tool.
void VetoWriteCalls(CallContext& call);

}  // namespace pipeline
}  // namespace toolgate

#endif  // TOOLGATE_CORE_PIPELINE_KILL_SWITCH_H_
