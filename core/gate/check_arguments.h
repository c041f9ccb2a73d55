// Stage "schema": each resolved call's arguments against its tool's input
// schema.
//
// Takes result->calls as resolve_tools.h left them; marks each call whose
// arguments validate (CheckedCall::valid) and adds an invalid_arguments
// violation for each schema violation of the others, at most
// options.max_violations_per_call per call. A call with no tool is left
// invalid. The validator saying "invalid" without saying why is still one
// violation: an invalid call is never silent.
//
// Stops between calls when the caller has gone (result->interrupted).
// Thread-safety: pure function over an immutable snapshot.
#ifndef TOOLGATE_CORE_GATE_CHECK_ARGUMENTS_H_
#define TOOLGATE_CORE_GATE_CHECK_ARGUMENTS_H_

#include "core/gate/gate_result.h"

namespace toolgate {

void CheckArguments(const GateOptions& options, GateResult* result);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_GATE_CHECK_ARGUMENTS_H_
