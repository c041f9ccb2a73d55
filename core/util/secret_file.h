// Reads a secret (a token) from a file, as Kubernetes mounts Secrets.
#ifndef TOOLGATE_CORE_UTIL_SECRET_FILE_H_
#define TOOLGATE_CORE_UTIL_SECRET_FILE_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace toolgate {

// A token is short; a bigger file is the wrong file.
inline constexpr size_t kMaxSecretBytes = 64 << 10;

// The file's content with surrounding whitespace trimmed. An unreadable or
// empty file, one that is not a regular file (or a symlink to one) and one
// over kMaxSecretBytes are INVALID_ARGUMENT naming `flag` and the path (see
// regular_file.h): "no secret" must never be mistaken for "no secret
// configured".
absl::StatusOr<std::string> ReadSecretFile(const std::string &path,
                                           absl::string_view flag);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_UTIL_SECRET_FILE_H_
