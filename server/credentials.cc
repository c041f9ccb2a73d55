#include "server/credentials.h"

#include <utility>

#include "core/util/tls_files.h"
#include "grpcpp/security/server_credentials.h"

namespace toolgate {
namespace server {

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ListenerCredentials(
    const ServerOptions& options) {
  if (options.tls_cert_file.empty() && options.tls_key_file.empty() &&
      options.tls_client_ca_file.empty()) {
    return grpc::InsecureServerCredentials();
  }
  absl::StatusOr<TlsKeyPair> pair =
      ReadPemKeyPair(options.tls_cert_file, "tls_cert_file",
                     options.tls_key_file, "tls_key_file");
  if (!pair.ok()) return pair.status();
  grpc::SslServerCredentialsOptions ssl(
      GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  ssl.pem_key_cert_pairs.push_back({pair->key_pem, pair->cert_pem});
  if (!options.tls_client_ca_file.empty()) {
    absl::StatusOr<std::string> ca =
        ReadPemCertificates(options.tls_client_ca_file, "tls_client_ca_file");
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = *std::move(ca);
    ssl.client_certificate_request =
        GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(ssl);
}

}  // namespace server
}  // namespace toolgate
