// Stage "decide": the one place a decision is made.
//
// Takes a GateResult every earlier stage has filled. ALLOW only when there
// is at least one call, every call was read, names a tool and validated,
// no violation was recorded and no policy stage vetoed; NEEDS_APPROVAL
// when all that holds but a policy asked for a human; REJECT otherwise,
// with the call violations in call order and capped (options.max_violations
// and max_violation_bytes; the rest counted in one too_many_violations),
// then the vetoes, whose reason becomes the stop_reason.
//
// A caller that has gone gets no decision: result->interrupted is set and
// the decision stays REJECT.
// Thread-safety: pure function.
#ifndef TOOLGATE_CORE_GATE_DECIDE_H_
#define TOOLGATE_CORE_GATE_DECIDE_H_

#include "core/gate/gate_result.h"

namespace toolgate {

void Decide(const GateOptions& options, GateResult* result);

// Whether Decide would ALLOW `result` or ask for approval, were it decided
// now: every call read, resolved and valid, no violation, no veto. Policy
// stages that spend something (an approval, a call budget) spend it only
// on such a result.
bool Allowable(const GateResult& result);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_GATE_DECIDE_H_
