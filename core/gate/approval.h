// Stage "policy" (the tool's own): a valid call of a tool whose manifest
// says requires_approval makes the output NEEDS_APPROVAL instead of ALLOW.
//
// Takes result->calls as check_arguments.h left them; sets
// result->needs_approval. Never allows anything: it can only hold back.
// Thread-safety: pure function.
#ifndef TOOLGATE_CORE_GATE_APPROVAL_H_
#define TOOLGATE_CORE_GATE_APPROVAL_H_

#include "core/gate/gate_result.h"

namespace toolgate {

void RequireApproval(GateResult* result);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_GATE_APPROVAL_H_
