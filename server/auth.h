// Roles: who may call the admin RPCs, and who may approve.
//
// Four roles: admin (CreateSnapshot by default, re-binding snapshot names,
// DeleteSnapshot), approver (ListApprovals, DecideApproval), agent
// (run-scoped RPCs, proven by the run token, checked by the engine), anyone
// (health, reflection, reads, stateless validation). This class decides
// "is this call admin?" and "is this call an approver's?".
//
// Admin: with an admin token configured, admin calls need the gRPC
// metadata `authorization: Bearer <token>`, compared in constant time;
// nothing else (not the listener, not a run token) stands in for it.
// Without one, admin calls are accepted only on a listener that other
// machines cannot reach (loopback or a unix socket); elsewhere they are
// PERMISSION_DENIED with a message naming --admin_token_file.
//
// Approver: an approval lets a call run and a listing shows every tenant's
// pending arguments, and an agent reaches the loopback listener of its own
// sidecar, so no listener is trusted here: an approver presents the admin
// token, or (with mTLS) a client certificate whose identity is in
// --approver_identities. With neither configured nobody can approve, and
// calls that need approval stay NEEDS_APPROVAL (a deny).
//
// Thread-safety: immutable after construction; safe to share.
#ifndef TOOLGATE_SERVER_AUTH_H_
#define TOOLGATE_SERVER_AUTH_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace toolgate {
namespace server {

class AdminAuth {
 public:
  // `token` empty: no admin token configured. `approver_identities`:
  // client-certificate identities that may approve (--approver_identities;
  // only meaningful with mTLS, which verifies them).
  AdminAuth(std::string token, bool local_listener,
            std::vector<std::string> approver_identities = {})
      : token_(std::move(token)),
        local_listener_(local_listener),
        approver_identities_(std::move(approver_identities)) {}

  // True for "unix:..." and loopback hosts (127.0.0.0/8, ::1, localhost).
  static bool IsLocalListener(absl::string_view listen);

  // `authorization` is the metadata value, empty when absent. OK means
  // the caller holds the admin role.
  absl::Status CheckAdmin(absl::string_view authorization) const;

  // OK means the caller may list and decide approvals: the admin token in
  // `authorization`, or one of `peer_identities` (the verified client
  // certificate's identities, empty without one) is listed. On every
  // listener, loopback and unix sockets included. PERMISSION_DENIED when
  // no approver credential is configured at all or the certificate is not
  // listed; UNAUTHENTICATED for a missing or wrong token.
  absl::Status CheckApprover(
      absl::string_view authorization,
      const std::vector<std::string>& peer_identities) const;

  // Whether anyone can approve (a token or approver identities).
  bool CanApprove() const {
    return !token_.empty() || !approver_identities_.empty();
  }

 private:
  absl::Status CheckToken(absl::string_view authorization) const;

  const std::string token_;
  const bool local_listener_;
  const std::vector<std::string> approver_identities_;
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_AUTH_H_
