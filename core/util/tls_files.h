// Reads and checks the PEM files of a TLS configuration before gRPC sees
// them. gRPC accepts broken PEM and only fails at handshake time (or not at
// all for a CA bundle it cannot parse), which would leave a server that
// looks started but answers nobody; here every defect is a start-up error
// naming the flag.
#ifndef TOOLGATE_CORE_UTIL_TLS_FILES_H_
#define TOOLGATE_CORE_UTIL_TLS_FILES_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace toolgate {

// One certificate file and the private key that belongs to it.
struct TlsKeyPair {
  std::string cert_pem;
  std::string key_pem;
};

// The content of `path`: one or more PEM X.509 certificates (a chain or a
// CA bundle). Unreadable, empty or unparsable is INVALID_ARGUMENT naming
// --`flag`.
absl::StatusOr<std::string> ReadPemCertificates(const std::string& path,
                                                absl::string_view flag);

// Both files, checked: the first certificate of `cert_path` parses, the
// key parses (unencrypted PEM) and is the private key of that certificate
// (OpenSSL's X509_check_private_key). Errors name the flag at fault.
absl::StatusOr<TlsKeyPair> ReadPemKeyPair(const std::string& cert_path,
                                          absl::string_view cert_flag,
                                          const std::string& key_path,
                                          absl::string_view key_flag);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_UTIL_TLS_FILES_H_
