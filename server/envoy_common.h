// What the Envoy adapters (envoy_authz, envoy_ext_proc) share: the header
// names of the mesh hook, reading Envoy's header maps, and the one place
// that turns the engine's errors into a deny.
//
// Thread-safety: pure functions over values.
#ifndef TOOLGATE_SERVER_ENVOY_COMMON_H_
#define TOOLGATE_SERVER_ENVOY_COMMON_H_

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/mesh/jsonrpc_error.h"
#include "envoy/config/core/v3/base.pb.h"

namespace toolgate {
namespace server {

// Request headers an agent (or the operator) sets.
inline constexpr absl::string_view kRunIdHeader = "x-toolgate-run-id";
inline constexpr absl::string_view kRunTokenHeader = "x-toolgate-run-token";
inline constexpr absl::string_view kSnapshotHeader = "x-toolgate-snapshot";
inline constexpr absl::string_view kApprovalHeader = "x-toolgate-approval-id";
// Set by ext_authz on an allowed request, read by ext_proc.
inline constexpr absl::string_view kRunGrantHeader = "x-toolgate-run-grant";
inline constexpr absl::string_view kToolHeader = "x-toolgate-tool";
// "mcp" or "rest": how ext_proc reads the answer (core/mesh/answer_plan.h);
// ext_proc removes it before the request goes upstream.
inline constexpr absl::string_view kRouteHeader = "x-toolgate-route";
inline constexpr absl::string_view kAuditIdHeader = "x-toolgate-audit-id";
// On toolgate's own deny responses (so ext_proc knows them; see
// envoy_ext_proc.h).
inline constexpr absl::string_view kDeniedHeader = "x-toolgate-denied";
// Route settings (ext_authz per-route context_extensions).
inline constexpr absl::string_view kSnapshotSetting = "toolgate_snapshot";
inline constexpr absl::string_view kToolPathSetting = "toolgate_tool_path";

// Lower-case header name -> value (raw_value when value is empty, as
// newer Envoys send). A repeated header keeps its values joined by ",".
using Headers = absl::flat_hash_map<std::string, std::string>;
void AddHeaders(const envoy::config::core::v3::HeaderMap& map, Headers* out);
std::string HeaderOr(const Headers& headers, absl::string_view name,
                     absl::string_view fallback = "");

// Sets `name: value` on `option`, overwriting what the request held.
void SetHeader(absl::string_view name, absl::string_view value,
               envoy::config::core::v3::HeaderValueOption* option);

// An engine error as the deny an agent sees: the caller's mistakes
// (unknown or closed run, wrong token, snapshot mismatch) are
// run_rejected; everything else is UNAVAILABLE (toolgate failing).
mesh::RpcError ErrorForStatus(const absl::Status& status);

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_ENVOY_COMMON_H_
