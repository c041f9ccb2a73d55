#include "core/util/ids.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <sys/random.h>

#include "absl/strings/escaping.h"

namespace toolgate {

// OpenSSL's direct SHA-256, not EVP: an EVP digest initialises the library
// context and its providers on first use, ~2 MB of resident library pages
// for a server whose start-up only hashes its manifests. The direct
// functions are deprecated in OpenSSL 3 (in favour of EVP) but supported.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
std::string Sha256(absl::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256_CTX ctx;
  SHA256_Init(&ctx);
  SHA256_Update(&ctx, data.data(), data.size());
  SHA256_Final(digest, &ctx);
  return std::string(reinterpret_cast<const char*>(digest), sizeof(digest));
}
#pragma GCC diagnostic pop

// The kernel's CSPRNG (getrandom(2), the source OpenSSL seeds from): ids
// and tokens need nothing more, and RAND_bytes would initialise all of
// OpenSSL's providers at start-up (~2 MB of resident library pages).
absl::StatusOr<std::string> RandomHex(size_t bytes) {
  std::string buf(bytes, '\0');
  for (size_t done = 0; done < bytes;) {
    const ssize_t n = getrandom(buf.data() + done, bytes - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return absl::InternalError("the system RNG failed");
    done += static_cast<size_t>(n);
  }
  return absl::BytesToHexString(buf);
}

bool SecretsEqual(absl::string_view a, absl::string_view b) {
  return a.size() == b.size() &&
         CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace toolgate
