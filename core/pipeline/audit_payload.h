// Audit payloads: what replay needs to decide a recorded call again.
//
// A payload is the request in proto JSON form (toolgate.v1 field names,
// enums by name, bytes in base64) without snapshot_id, run_id and
// run_token, so that `toolgatectl replay` can send it to a server as it is
// (JsonStringToMessage) or decide it in process (the *FromPayload readers
// below): one format for both.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_PIPELINE_AUDIT_PAYLOAD_H_
#define TOOLGATE_CORE_PIPELINE_AUDIT_PAYLOAD_H_

#include "absl/status/statusor.h"
#include "core/json/strict_json.h"
#include "core/pipeline/api.h"

namespace toolgate {

Json CallPayload(const ValidateCallRequest& request);
Json VerdictPayload(const VerdictRequest& request);
Json OutputPayload(const ValidateOutputRequest& request);

// The readers: INVALID_ARGUMENT naming the member that is missing or of
// the wrong type. A request's views (output, body) point into `payload`
// or `bytes`, which must outlive it.
absl::StatusOr<ValidateCallRequest> CallFromPayload(const Json& payload);
absl::StatusOr<VerdictRequest> VerdictFromPayload(const Json& payload);
absl::StatusOr<ValidateOutputRequest> OutputFromPayload(const Json& payload,
                                                        std::string* bytes);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_PIPELINE_AUDIT_PAYLOAD_H_
