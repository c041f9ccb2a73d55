#include "server/mesh_grants.h"

#include "core/util/ids.h"

namespace toolgate {
namespace server {

RunGrants::RunGrants(std::function<absl::Time()> now)
    : now_(now ? std::move(now) : [] { return absl::Now(); }) {}

void RunGrants::DropOldLocked() {
  const absl::Time now = now_();
  while (!order_.empty() &&
         (order_.front().first <= now || grants_.size() >= kMaxGrants ||
          order_.size() > 2 * kMaxGrants)) {
    grants_.erase(order_.front().second);
    order_.pop_front();
  }
}

absl::StatusOr<std::string> RunGrants::Issue(RunCredential credential) {
  absl::StatusOr<std::string> grant = RandomHex(16);
  if (!grant.ok()) return grant.status();
  const absl::Time expires = now_() + kGrantTtl;
  absl::MutexLock lock(&mu_);
  DropOldLocked();
  grants_[*grant] = Entry{std::move(credential), expires};
  order_.emplace_back(expires, *grant);
  return grant;
}

std::optional<RunCredential> RunGrants::Take(absl::string_view grant) {
  absl::MutexLock lock(&mu_);
  auto it = grants_.find(grant);
  if (it == grants_.end()) return std::nullopt;
  Entry entry = std::move(it->second);
  grants_.erase(it);
  if (entry.expires <= now_()) return std::nullopt;
  return std::move(entry.credential);
}

}  // namespace server
}  // namespace toolgate
