// The decision: may these tool calls execute?
//
// ALLOW only when every call names a tool of the snapshot by exact,
// case-sensitive name and its arguments validate against that tool's
// schema. Anything unread, unknown or invalid is REJECT with violations a
// model can act on; nothing undecidable becomes ALLOW.
//
// CheckToolCalls is the gate's stages in order: resolve_tools.h, coerce.h,
// check_arguments.h, argument_policy.h (with no run), approval.h,
// decide.h. The engine runs the same stages
// one by one inside its pipeline (core/engine/validate_tool_call.cc), with
// the run's policies between approval and decide; this function is the
// gate alone, for callers that hold no run.
//
// Thread-safety: pure function over an immutable snapshot.
#ifndef TOOLGATE_CORE_GATE_GATE_H_
#define TOOLGATE_CORE_GATE_GATE_H_

#include "absl/status/status.h"
#include "core/gate/calls.h"
#include "core/gate/gate_result.h"
#include "core/snapshot/snapshot.h"
#include "core/util/cancel.h"

namespace toolgate {

GateResult CheckToolCalls(const Snapshot& snapshot, RawCalls calls,
                          const GateOptions& options = GateOptions());

}  // namespace toolgate

#endif  // TOOLGATE_CORE_GATE_GATE_H_
