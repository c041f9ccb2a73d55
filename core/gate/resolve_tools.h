// Stage "resolve tool": which tool of the snapshot each call names.
//
// Takes the calls read from one model output (or why it could not be
// read) and fills result->calls, each with its tool, or null when the call
// was not read or names no tool of the snapshot (exact, case-sensitive
// name). Adds a violation for each such call, and one for an output that
// was not read, holds no call or holds more than
// options.max_calls_per_output (then no call is kept).
//
// Stops between calls when the caller has gone (result->interrupted).
// Thread-safety: pure function over an immutable snapshot.
#ifndef TOOLGATE_CORE_GATE_RESOLVE_TOOLS_H_
#define TOOLGATE_CORE_GATE_RESOLVE_TOOLS_H_

#include "core/gate/calls.h"
#include "core/gate/gate_result.h"
#include "core/snapshot/snapshot.h"

namespace toolgate {

// `calls` is consumed (its calls move into result->calls).
void ResolveTools(const Snapshot& snapshot, RawCalls&& calls,
                  const GateOptions& options, GateResult* result);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_GATE_RESOLVE_TOOLS_H_
