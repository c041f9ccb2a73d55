// The transport security of the main listener, from the --tls_* flags.
#ifndef TOOLGATE_SERVER_CREDENTIALS_H_
#define TOOLGATE_SERVER_CREDENTIALS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "grpcpp/security/server_credentials.h"
#include "server/options.h"

namespace toolgate {
namespace server {

// Plaintext when no --tls_cert_file is set. Otherwise TLS with the checked
// files, and with --tls_client_ca_file clients must present a certificate
// that CA signed (GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY).
// Any unreadable, empty, unparsable or mismatched file is INVALID_ARGUMENT
// naming the flag: never a fallback to plaintext.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ListenerCredentials(
    const ServerOptions& options);

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_CREDENTIALS_H_
