#include "core/util/secret_file.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace toolgate {

absl::StatusOr<std::string> ReadSecretFile(const std::string &path,
                                           absl::string_view flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": cannot read ", path));
  }
  std::stringstream buf;
  buf << in.rdbuf();
  std::string secret(absl::StripAsciiWhitespace(buf.str()));
  if (secret.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": ", path, " is empty"));
  }
  return secret;
}

}  // namespace toolgate
