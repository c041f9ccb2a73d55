// Stage "resolve": what this call is about, before anything is read.
//
// Takes the request; fills call.target (snapshot, and run when one is
// named), response.snapshot_id and response.audit_id. Caller errors are
// Status: no model output given, an unknown snapshot or run, a wrong run
// token (target.h). Nothing is decided here.
#ifndef TOOLGATE_CORE_PIPELINE_RESOLVE_H_
#define TOOLGATE_CORE_PIPELINE_RESOLVE_H_

#include "absl/status/status.h"
#include "core/pipeline/call_context.h"

namespace toolgate {
namespace pipeline {

absl::Status Resolve(CallContext& call);

}  // namespace pipeline
}  // namespace toolgate

#endif  // TOOLGATE_CORE_PIPELINE_RESOLVE_H_
