#include "server/auth.h"

#include <openssl/crypto.h>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

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
  if (authorization.empty()) {
    return absl::UnauthenticatedError(
        "admin call without \"authorization: Bearer <token>\" metadata");
  }
  return CheckToken(authorization);
}

absl::Status AdminAuth::CheckToken(absl::string_view authorization) const {
  constexpr absl::string_view kScheme = "Bearer ";
  // Constant time in the token's content (the length is not secret enough
  // to matter, and the compare must not run past the shorter buffer).
  const bool scheme_ok = absl::StartsWith(authorization, kScheme);
  absl::string_view given =
      scheme_ok ? authorization.substr(kScheme.size()) : absl::string_view();
  const bool match =
      !token_.empty() && given.size() == token_.size() &&
      CRYPTO_memcmp(given.data(), token_.data(), token_.size()) == 0;
  if (!scheme_ok || !match) {
    return absl::UnauthenticatedError("admin token does not match");
  }
  return absl::OkStatus();
}

absl::Status AdminAuth::CheckApprover(
    absl::string_view authorization,
    const std::vector<std::string>& peer_identities) const {
  if (!CanApprove()) {
    return absl::PermissionDeniedError(
        "nobody can approve: no approver credential is configured (start "
        "toolgate with --admin_token_file, or --approver_identities with "
        "--tls_client_ca_file); calls that need approval stay "
        "NEEDS_APPROVAL");
  }
  for (const std::string& id : peer_identities) {
    if (absl::c_linear_search(approver_identities_, id)) {
      return absl::OkStatus();
    }
  }
  if (!token_.empty()) {
    if (authorization.empty()) {
      return absl::UnauthenticatedError(
          "approval calls need \"authorization: Bearer <admin token>\" "
          "metadata on every listener, loopback and unix sockets included "
          "(toolgatectl --admin_token_file PATH)");
    }
    return CheckToken(authorization);
  }
  std::string presented =
      peer_identities.empty() ? "(none)" : absl::StrJoin(peer_identities, ", ");
  if (presented.size() > 256) presented = presented.substr(0, 256) + "...";
  return absl::PermissionDeniedError(absl::StrCat(
      "approval calls need a client certificate whose identity is in "
      "--approver_identities; this one's: ",
      presented));
}

}  // namespace server
}  // namespace toolgate
