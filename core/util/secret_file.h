// Reads a secret (a token) from a file, as Kubernetes mounts Secrets.
#ifndef TOOLGATE_CORE_UTIL_SECRET_FILE_H_
#define TOOLGATE_CORE_UTIL_SECRET_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace toolgate {

// The file's content with surrounding whitespace trimmed. An unreadable or
// empty file is INVALID_ARGUMENT naming `flag`: "no secret" must never be
// mistaken for "no secret configured".
absl::StatusOr<std::string> ReadSecretFile(const std::string &path,
                                           absl::string_view flag);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_UTIL_SECRET_FILE_H_
