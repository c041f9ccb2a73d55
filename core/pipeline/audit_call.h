// Stage "audit": one record of the decision, written last, and also for a
// decision taken early (an open breaker). A call that ended in a Status
// (caller error, caller gone) decided nothing and is not audited.
//
// Takes call.response and call.target; records the tools named and the
// violation codes, never argument values (audit_trail.h bounds the rest).
#ifndef TOOLGATE_CORE_PIPELINE_AUDIT_CALL_H_
#define TOOLGATE_CORE_PIPELINE_AUDIT_CALL_H_

#include "absl/status/status.h"
#include "core/pipeline/call_context.h"

namespace toolgate {
namespace pipeline {

absl::Status AuditCall(CallContext& call);

}  // namespace pipeline
}  // namespace toolgate

#endif  // TOOLGATE_CORE_PIPELINE_AUDIT_CALL_H_
