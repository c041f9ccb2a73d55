// Where the shared state store lives: --state_store's Redis URL.
//
//   redis://[USER@]HOST[:PORT][/DB]     plain TCP
//   rediss://[USER@]HOST[:PORT][/DB]    TLS
//   unix:///PATH                        a unix socket (database 0)
//
// A password is never part of the URL (it would show in argv, ps and
// logs): it comes from --state_store_password_file. An ACL user name may.
#ifndef TOOLGATE_CORE_REDIS_ADDRESS_H_
#define TOOLGATE_CORE_REDIS_ADDRESS_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace toolgate::redis {

struct Address {
  enum class Transport { kTcp, kTls, kUnix };
  Transport transport = Transport::kTcp;
  std::string host;  // kTcp, kTls: a name, an IPv4 or an IPv6 address.
  int port = 6379;
  std::string path;  // kUnix.
  int db = 0;
  std::string user;  // ACL user; empty: the default user.

  // The URL again, for messages and logs (holds no secret).
  std::string ToString() const;
};

// INVALID_ARGUMENT naming --state_store for anything else: another
// scheme, a password, a query or fragment, a port or database out of
// range, a relative socket path.
absl::StatusOr<Address> ParseAddress(absl::string_view url);

}  // namespace toolgate::redis

#endif  // TOOLGATE_CORE_REDIS_ADDRESS_H_
