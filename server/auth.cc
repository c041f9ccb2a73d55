#include "server/auth.h"

#include <openssl/crypto.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace toolgate {
namespace server {

bool AdminAuth::IsLocalListener(absl::string_view listen) {
  if (absl::StartsWith(listen, "unix:") ||
      absl::StartsWith(listen, "unix-abstract:")) {
    return true;
  }
  absl::string_view host = listen.substr(0, listen.rfind(':'));
  if (absl::StartsWith(host, "ipv4:")) host.remove_prefix(5);
  if (absl::StartsWith(host, "ipv6:")) host.remove_prefix(5);
  return host == "localhost" || host == "[::1]" ||
         absl::StartsWith(host, "127.");
}

absl::Status AdminAuth::CheckAdmin(absl::string_view authorization) const {
  if (token_.empty()) {
    if (local_listener_) return absl::OkStatus();
    return absl::PermissionDeniedError(
        "admin calls on a non-loopback listener need an admin credential: "
        "start toolgate with --admin_token_file");
  }
  constexpr absl::string_view kScheme = "Bearer ";
  if (authorization.empty()) {
    return absl::UnauthenticatedError(
        "admin call without \"authorization: Bearer <token>\" metadata");
  }
  // Constant time in the token's content (the length is not secret enough
  // to matter, and the compare must not run past the shorter buffer).
  const bool scheme_ok = absl::StartsWith(authorization, kScheme);
  absl::string_view given =
      scheme_ok ? authorization.substr(kScheme.size()) : absl::string_view();
  const bool match =
      given.size() == token_.size() &&
      CRYPTO_memcmp(given.data(), token_.data(), token_.size()) == 0;
  if (!scheme_ok || !match) {
    return absl::UnauthenticatedError("admin token does not match");
  }
  return absl::OkStatus();
}

}  // namespace server
}  // namespace toolgate
