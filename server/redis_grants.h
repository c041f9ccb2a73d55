// Mesh grants (server/mesh_grants.h) in the shared state store, so that
// Envoy's ext_authz and ext_proc may reach different replicas.
//
// A grant is one key, P + "grant:" + the grant, holding the run id and the
// run's token for GrantStore::kGrantTtl, taken once with GETDEL (each is a
// single-key command: any replica, any Redis Cluster slot). The token is
// held in the store for at most the grant's life: whoever can read the
// store can already change every run's state, so it adds no power there,
// while the agent's and the tool server's side never see it.
//
// Thread-safety: safe from any thread.
#ifndef TOOLGATE_SERVER_REDIS_GRANTS_H_
#define TOOLGATE_SERVER_REDIS_GRANTS_H_

#include <optional>
#include <string>

#include "core/redis/client.h"
#include "server/mesh_grants.h"

namespace toolgate {
namespace server {

class RedisGrants : public GrantStore {
 public:
  // `client` must outlive this.
  RedisGrants(redis::Client& client, std::string key_prefix)
      : client_(client), prefix_(std::move(key_prefix)) {}

  absl::StatusOr<std::string> Issue(RunCredential credential) override;
  std::optional<RunCredential> Take(absl::string_view grant) override;

 private:
  redis::Client& client_;
  const std::string prefix_;
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_REDIS_GRANTS_H_
