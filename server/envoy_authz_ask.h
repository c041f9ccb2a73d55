// Internal to server/envoy_authz: what one ext_authz Check asks for, read
// from Envoy's attributes, and the snapshot it is decided against.
//
// Thread-safety: pure functions over the request (ResolveSnapshot reads
// the engine's snapshots, which the engine guards).
#ifndef TOOLGATE_SERVER_ENVOY_AUTHZ_ASK_H_
#define TOOLGATE_SERVER_ENVOY_AUTHZ_ASK_H_

#include <string>

#include "core/trace/tracer.h"
#include "absl/status/statusor.h"
#include "core/engine/engine.h"
#include "envoy/service/auth/v3/external_auth.grpc.pb.h"
#include "server/envoy_common.h"

namespace toolgate {
namespace server {
namespace authz_internal {

// What one request asks for, read from Envoy's attributes.
struct Ask {
  Headers headers;
  std::string method;
  std::string path;
  std::string body;
  bool rest = false;
  std::string tool_path;
  std::string snapshot_id;  // Resolved.
  std::string run_id;
  std::string run_token;
  trace::RequestTrace* trace = nullptr;  // Not owned; may be null.
};

// The request's headers by lower-case name, every value of a name joined
// with ',' (from Envoy's map and its header_map).
Headers ReadHeaders(
    const envoy::service::auth::v3::AttributeContext::HttpRequest& http);

Ask ReadAsk(
    const envoy::service::auth::v3::AttributeContext::HttpRequest& http);

// The route's snapshot (by id or name) wins; a client's x-toolgate-snapshot
// is read only where the route names none, and must then agree. With
// neither, a run's pinned snapshot is used ("": the engine resolves it);
// with no run either, there is no snapshot: a deny.
absl::StatusOr<std::string> ResolveSnapshot(
    Engine* engine, const envoy::service::auth::v3::CheckRequest& request,
    const Ask& ask);

}  // namespace authz_internal
}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_ENVOY_AUTHZ_ASK_H_
