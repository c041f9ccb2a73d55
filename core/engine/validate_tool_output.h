// The ValidateToolOutput RPC: is this tool output safe for the model to
// read?
//
// Stages: resolve the snapshot (and run) -> find the tool's output spec ->
// check the body (core/output: format, schema, markup and injection
// scans) -> the caller still waits? -> count an INVALID toward the run's
// kill switch -> audit. A tool absent from the snapshot is unknown_tool,
// never VALID. Caller errors and a caller that has gone are Status (and
// then nothing counts toward the kill switch).
//
// Thread-safety: as Services.
#ifndef TOOLGATE_CORE_ENGINE_VALIDATE_TOOL_OUTPUT_H_
#define TOOLGATE_CORE_ENGINE_VALIDATE_TOOL_OUTPUT_H_

#include "absl/status/statusor.h"
#include "core/pipeline/api.h"
#include "core/pipeline/services.h"

namespace toolgate {

absl::StatusOr<ValidateOutputResponse> HandleValidateToolOutput(
    const Services& services, const ValidateOutputRequest& request);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_ENGINE_VALIDATE_TOOL_OUTPUT_H_
