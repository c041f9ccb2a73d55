// envoy.service.auth.v3.Authorization/Check: Envoy's ext_authz filter asks
// toolgate before an MCP `tools/call` (or a REST tool call) reaches the
// tool server. docs/mesh.md has the picture, headers and route settings.
//
// The decision is core/mesh's (mcp_gate.h, over the Engine): a body's
// tools/call messages, a JSON-RPC batch's together, are one
// Engine::ValidateToolCall (one turn; audit source "envoy_ext_authz"):
// schema, policy, approvals, budgets, breaker, kill switch and audit all
// apply. Lifecycle and read methods pass (core/mesh/mcp_request.h).
// Everything else is a deny:
// another method, a batch with any message not let through, an
// unreadable, missing, partial (x-envoy-auth-partial-body) or oversize
// body, a Content-Type or Content-Encoding a server could decode otherwise,
// a REST path with a query string, no snapshot, a run that is unknown,
// whose token is wrong or whose snapshot is not the route's, and toolgate
// failing (UNAVAILABLE error, never an OK).
//
// Allowed: ok_response removes x-toolgate-run-token, sets
// x-toolgate-route ("mcp" or "rest": how ext_proc reads the answer),
// x-toolgate-audit-id, x-toolgate-snapshot (the resolved id),
// x-toolgate-tool (a single call's tool, else empty) and, for a call in a
// run, x-toolgate-run-grant (for ext_proc; server/mesh_grants.h), each
// overwriting what the client sent. Denied: status PERMISSION_DENIED and a
// denied_response holding a JSON-RPC error for the request's id (HTTP 200,
// application/json, for MCP clients to hand to the model) or, on REST
// routes, HTTP 403 with {"error": ...}. GET on an MCP route is 405 (no
// server-to-client stream through toolgate).
//
// Thread-safety: as the Engine; Check may run concurrently.
#ifndef TOOLGATE_SERVER_ENVOY_AUTHZ_H_
#define TOOLGATE_SERVER_ENVOY_AUTHZ_H_

#include "core/engine/engine.h"
#include "core/trace/tracer.h"
#include "core/util/cancel.h"
#include "envoy/service/auth/v3/external_auth.grpc.pb.h"
#include "server/mesh_grants.h"
#include "server/metrics.h"

namespace toolgate {
namespace server {

inline constexpr absl::string_view kAuthzSource = "envoy_ext_authz";

// The decision, without gRPC: what Check answers for `request`. When
// `outcome` is set it receives the decision behind the answer (one of
// ServerMetrics::DecisionNames("ext_authz.Check"), docs/mesh.md
// "Metrics"): the engine's decision on the request's tool calls (a
// batch's together); PASS_THROUGH for an allowed request
// with no tool call; DENIED_REQUEST for a deny before any decision (method,
// body, snapshot, a JSON-RPC message not let through); DENIED_RUN when the
// engine refused the run (unknown, wrong token, other snapshot); ERROR
// when toolgate failed (engine or grant). Also the violations, repairs and
// whether a call opened the run's breaker.
envoy::service::auth::v3::CheckResponse DecideCheck(
    Engine* engine, GrantStore* grants,
    const envoy::service::auth::v3::CheckRequest& request,
    const CancelToken& cancel, MeshOutcome* outcome = nullptr,
    trace::RequestTrace* trace = nullptr);

class EnvoyAuthzService final
    : public envoy::service::auth::v3::Authorization::CallbackService {
 public:
  // No pointer is owned; all must outlive the service. `metrics` may be
  // null (nothing counted, nothing timed).
  EnvoyAuthzService(Engine* engine, GrantStore* grants,
                    ServerMetrics* metrics = nullptr,
                    trace::Tracer* tracer = nullptr)
      : engine_(engine), grants_(grants), metrics_(metrics), tracer_(tracer) {}

  grpc::ServerUnaryReactor* Check(
      grpc::CallbackServerContext* context,
      const envoy::service::auth::v3::CheckRequest* request,
      envoy::service::auth::v3::CheckResponse* response) override;

 private:
  Engine* const engine_;
  GrantStore* const grants_;
  ServerMetrics* const metrics_;
  trace::Tracer* const tracer_;  // May be null: tracing off.
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_ENVOY_AUTHZ_H_
