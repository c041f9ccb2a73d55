#include "core/util/ids.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "absl/strings/escaping.h"

namespace toolgate {

std::string Sha256(absl::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<const char*>(digest), len);
}

absl::StatusOr<std::string> RandomHex(size_t bytes) {
  std::string buf(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(buf.data()),
                 static_cast<int>(bytes)) != 1) {
    return absl::InternalError("the system RNG failed");
  }
  return absl::BytesToHexString(buf);
}

bool SecretsEqual(absl::string_view a, absl::string_view b) {
  return a.size() == b.size() &&
         CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace toolgate
