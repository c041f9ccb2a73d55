// Digests (OpenSSL's SHA-256) and random identifiers (the kernel's CSPRNG).
//
// Thread-safety: all functions are thread-safe.
#ifndef TOOLGATE_CORE_UTIL_IDS_H_
#define TOOLGATE_CORE_UTIL_IDS_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace toolgate {

// Raw 32-byte SHA-256 digest of `data`.
std::string Sha256(absl::string_view data);

// Lower-case hex of `bytes` bytes from a cryptographic RNG.
absl::StatusOr<std::string> RandomHex(size_t bytes);

// Constant-time equality for secrets of equal length.
bool SecretsEqual(absl::string_view a, absl::string_view b);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_UTIL_IDS_H_
