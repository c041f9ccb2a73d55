#include "core/util/secret_file.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/util/regular_file.h"

namespace toolgate {

absl::StatusOr<std::string> ReadSecretFile(const std::string &path,
                                           absl::string_view flag) {
  absl::StatusOr<std::string> read = ReadRegularFile(path, kMaxSecretBytes);
  if (!read.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": ", read.status().message()));
  }
  std::string secret(absl::StripAsciiWhitespace(*read));
  if (secret.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": ", path, " is empty"));
  }
  return secret;
}

}  // namespace toolgate
