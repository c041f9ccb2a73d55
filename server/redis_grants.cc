#include "server/redis_grants.h"

#include "absl/strings/str_cat.h"
#include "core/state/redis_layout.h"
#include "core/util/ids.h"

namespace toolgate {
namespace server {
namespace {

// Run ids and tokens are hex (core/run): '\n' never occurs in either.
constexpr char kSeparator = '\n';

}  // namespace

absl::StatusOr<std::string> RedisGrants::Issue(RunCredential credential) {
  absl::StatusOr<std::string> grant = RandomHex(16);
  if (!grant.ok()) return grant.status();
  absl::StatusOr<redis::Reply> set = client_.Run(
      "grant_issue",
      {"SET", state::redis_layout::GrantKey(prefix_, *grant),
       absl::StrCat(credential.run_id, std::string(1, kSeparator),
                    credential.run_token),
       "PX", absl::StrCat(absl::ToInt64Milliseconds(kGrantTtl)), "NX"});
  if (!set.ok()) return set.status();
  if (set->str != "OK") {
    return absl::UnavailableError(
        absl::StrCat(client_.name(), ": the grant was not stored"));
  }
  return *std::move(grant);
}

std::optional<RunCredential> RedisGrants::Take(absl::string_view grant) {
  absl::StatusOr<redis::Reply> got = client_.Run(
      "grant_take", {"GETDEL", state::redis_layout::GrantKey(prefix_, grant)});
  if (!got.ok() || got->type != redis::Reply::Type::kString) {
    return std::nullopt;
  }
  const size_t cut = got->str.find(kSeparator);
  if (cut == std::string::npos || cut == 0 || cut + 1 == got->str.size()) {
    return std::nullopt;
  }
  return RunCredential{got->str.substr(0, cut), got->str.substr(cut + 1)};
}

}  // namespace server
}  // namespace toolgate
