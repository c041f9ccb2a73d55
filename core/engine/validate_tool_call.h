// The ValidateToolCall RPC: may the tool calls in this model output run?
//
// The answer is a fixed sequence of stages over one CallContext, written
// once in validate_tool_call.cc; read that list first. Each stage is its
// own component under core/pipeline/ (docs/architecture.md has the
// picture and a paragraph per stage).
//
// Caller errors and a caller that has gone are Status; every judgment of
// the output is the response's decision, and it is ALLOW only when every
// stage let it through.
//
// Thread-safety: as Services (any number of calls at once).
#ifndef TOOLGATE_CORE_ENGINE_VALIDATE_TOOL_CALL_H_
#define TOOLGATE_CORE_ENGINE_VALIDATE_TOOL_CALL_H_

#include "absl/status/statusor.h"
#include "core/pipeline/api.h"
#include "core/pipeline/services.h"

namespace toolgate {

absl::StatusOr<ValidateCallResponse> HandleValidateToolCall(
    const Services& services, const ValidateCallRequest& request);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_ENGINE_VALIDATE_TOOL_CALL_H_
