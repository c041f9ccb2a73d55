// Hand-over of a run's credential from ext_authz to ext_proc for one
// request, inside one toolgate process.
//
// Why: ext_authz removes x-toolgate-run-token before the request goes on
// (the tool server must never see it), so the ext_proc filter after it,
// which checks the tool's answer in the same run (kill switch), cannot
// read it. On an allowed call ext_authz issues a one-time random grant
// (x-toolgate-run-grant, set on the request); ext_proc takes it back for
// the run id and token, and removes the header before the request goes
// upstream. A grant is used once, lives kGrantTtl, and at most kMaxGrants
// are held (the oldest dropped first). A grant not found is a deny: both
// filters must reach the same toolgate (a sidecar), see docs/mesh.md.
//
// Thread-safety: all methods may be called concurrently.
#ifndef TOOLGATE_SERVER_MESH_GRANTS_H_
#define TOOLGATE_SERVER_MESH_GRANTS_H_

#include <deque>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace toolgate {
namespace server {

struct RunCredential {
  std::string run_id;
  std::string run_token;
};

// Where grants are kept: this process (RunGrants), or the shared state
// store (server/redis_grants.h), so that ext_proc may reach another
// replica than ext_authz did.
class GrantStore {
 public:
  static constexpr absl::Duration kGrantTtl = absl::Seconds(300);
  virtual ~GrantStore() = default;
  // A new grant for the run; an error when none could be issued (no random
  // bytes, a store that does not answer): ext_authz then denies.
  virtual absl::StatusOr<std::string> Issue(RunCredential credential) = 0;
  // The credential, once; nullopt for an unknown, used or expired grant,
  // and when the store cannot answer (ext_proc then withholds the answer).
  virtual std::optional<RunCredential> Take(absl::string_view grant) = 0;
};

class RunGrants : public GrantStore {
 public:
  static constexpr size_t kMaxGrants = 65536;

  // `now` (tests only): the clock.
  explicit RunGrants(std::function<absl::Time()> now = nullptr);

  absl::StatusOr<std::string> Issue(RunCredential credential) override;
  std::optional<RunCredential> Take(absl::string_view grant) override;

 private:
  struct Entry {
    RunCredential credential;
    absl::Time expires;
  };
  void DropOldLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::function<absl::Time()> now_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, Entry> grants_ ABSL_GUARDED_BY(mu_);
  // Issue order, for expiry and the cap (may name grants already taken).
  std::deque<std::pair<absl::Time, std::string>> order_ ABSL_GUARDED_BY(mu_);
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_MESH_GRANTS_H_
