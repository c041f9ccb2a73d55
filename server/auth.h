// Roles: who may call the admin RPCs.
//
// Three roles: admin (CreateSnapshot by default, re-binding snapshot names,
// and later admin RPCs), agent (run-scoped RPCs, proven by the run token,
// checked by the engine), anyone (health, reflection, reads, stateless
// validation). This class decides only "is this call admin?".
//
// With an admin token configured, admin calls need the gRPC metadata
// `authorization: Bearer <token>`, compared in constant time; nothing else
// (not the listener, not a run token) stands in for it. Without one, admin
// calls are accepted only on a listener that other machines cannot reach
// (loopback or a unix socket); elsewhere they are PERMISSION_DENIED with a
// message naming --admin_token_file.
//
// Thread-safety: immutable after construction; safe to share.
#ifndef TOOLGATE_SERVER_AUTH_H_
#define TOOLGATE_SERVER_AUTH_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace toolgate {
namespace server {

class AdminAuth {
 public:
  // `token` empty: no credential configured.
  AdminAuth(std::string token, bool local_listener)
      : token_(std::move(token)), local_listener_(local_listener) {}

  // True for "unix:..." and loopback hosts (127.0.0.0/8, ::1, localhost).
  static bool IsLocalListener(absl::string_view listen);

  // `authorization` is the metadata value, empty when absent. OK means
  // the caller holds the admin role.
  absl::Status CheckAdmin(absl::string_view authorization) const;

 private:
  const std::string token_;
  const bool local_listener_;
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_AUTH_H_
