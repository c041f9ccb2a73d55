// The run token as the Redis store keeps it: lower-case hex of its SHA-256
// (redis_layout.h, field "tok").
//
// A call in a run hashes its token twice (the replica's cached run is
// checked against it, then the commit sends it to the store); the second
// time is answered from a one-entry cache per thread, matched in constant
// time, so no token is ever compared by a timing-revealing `==`.
//
// Thread-safety: thread-compatible state is thread_local; safe from any
// thread.
#ifndef TOOLGATE_CORE_STATE_REDIS_TOKEN_H_
#define TOOLGATE_CORE_STATE_REDIS_TOKEN_H_

#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/string_view.h"
#include "core/util/ids.h"

namespace toolgate {
namespace state {

inline std::string StoredTokenHash(absl::string_view token) {
  if (token.empty()) return std::string();
  thread_local std::string last_token;
  thread_local std::string last_hash;
  if (!last_hash.empty() && SecretsEqual(token, last_token)) return last_hash;
  std::string hash = absl::BytesToHexString(Sha256(token));
  last_token.assign(token.data(), token.size());
  last_hash = hash;
  return hash;
}

}  // namespace state
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STATE_REDIS_TOKEN_H_
