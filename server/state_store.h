// The server's shared state store (--state_store=redis://...): connected
// and checked at start-up (an error names the flag at fault), handed to
// the Engine as its runs, run state and approvals, watched for readiness,
// and counted in metrics. --state_store=memory (the default) opens none.
//
// Readiness, not liveness: while the store does not answer, the main
// server's grpc.health.v1 says NOT_SERVING (Kubernetes takes the pod out
// of its Service) and comes back by itself; the --health_listen server
// never asks the store, so a Redis outage does not restart every pod.
//
// Thread-safety: Open once; Factory's stores and Ping are thread-safe.
#ifndef TOOLGATE_SERVER_STATE_STORE_H_
#define TOOLGATE_SERVER_STATE_STORE_H_

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "absl/status/statusor.h"
#include "core/engine/engine.h"
#include "core/redis/client.h"
#include "core/state/shared_state.h"
#include "grpcpp/server.h"
#include "prometheus/registry.h"
#include "server/mesh_grants.h"
#include "server/options.h"

namespace toolgate {
namespace server {

class StateStore {
 public:
  // Null for "memory". Reads the password and TLS files, connects and
  // authenticates within 5 s: INVALID_ARGUMENT, UNAUTHENTICATED,
  // UNAVAILABLE or DEADLINE_EXCEEDED naming the --state_store* flag.
  static absl::StatusOr<std::unique_ptr<StateStore>> Open(
      const StateStoreOptions& options, const EngineOptions& engine);

  // The Engine's stores over the engine's snapshot store.
  state::SharedStateFactory Factory();
  // The mesh's grants, in the store (ext_authz and ext_proc may reach
  // different replicas).
  std::unique_ptr<GrantStore> Grants();
  // toolgate_state_store_requests_total{operation,result} and
  // toolgate_state_store_request_seconds{operation}; before serving.
  void CountIn(prometheus::Registry& registry);
  absl::Status Ping();
  const std::string& name() const { return client_->name(); }

 private:
  StateStore(std::unique_ptr<redis::Client> client, StateStoreOptions options,
             EngineOptions engine);

  std::unique_ptr<redis::Client> client_;
  const StateStoreOptions options_;
  const EngineOptions engine_;
};

// The service name whose health on --health_listen says whether this
// replica can decide (its state store answers): Kubernetes' readiness
// probe asks for it (`grpc: {port, service: toolgate.v1.ToolGate}`), its
// liveness probe for the server as a whole ("").
inline constexpr char kReadinessService[] = "toolgate.v1.ToolGate";

// PINGs the store every second; the main server's serving status and
// kReadinessService's on `health_server` (may be null) follow it
// (NOT_SERVING after one failed ping, SERVING after the next success),
// unless `draining` is set (then they stay NOT_SERVING).
class StoreHealth {
 public:
  StoreHealth(StateStore* store, grpc::Server* server,
              grpc::Server* health_server, const std::atomic<bool>* draining);
  ~StoreHealth();  // Stops the thread.

 private:
  void Loop();

  StateStore* const store_;
  grpc::Server* const server_;
  grpc::Server* const health_server_;
  const std::atomic<bool>* const draining_;
  std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_STATE_STORE_H_
