// OpenSSL set-up for a TLS connection to Redis (rediss://). Internal to
// core/redis.
#ifndef TOOLGATE_CORE_REDIS_TLS_CONTEXT_H_
#define TOOLGATE_CORE_REDIS_TLS_CONTEXT_H_

#include <openssl/ssl.h>

#include <string>

#include "absl/status/statusor.h"
#include "core/redis/transport.h"

namespace toolgate::redis {

// A client context that verifies the peer against `tls.ca` (or the
// system's roots when empty) and presents `tls.cert`/`tls.key` when given.
// The caller owns it (SSL_CTX_free). INVALID_ARGUMENT naming the flag
// whose PEM does not load.
absl::StatusOr<SSL_CTX*> ClientContext(const TlsPem& tls);

// Sends SNI for a host name and makes the handshake check that the
// certificate names `host` (a DNS name, or an IP address in its SANs).
absl::Status ExpectPeer(SSL* ssl, const std::string& host);

}  // namespace toolgate::redis

#endif  // TOOLGATE_CORE_REDIS_TLS_CONTEXT_H_
