// One connection to Redis: TCP, TLS (OpenSSL) or a unix socket, every
// read and write bounded by a deadline. Replies are parsed by hiredis's
// reader; commands are written as RESP arrays here (connection.cc); the
// transport is ours, because Debian's hiredis (0.14) has no TLS and its blocking
// calls take one timeout per syscall rather than a deadline per request.
//
// A transport error or a deadline passed mid-request leaves the stream at
// an unknown point: the connection is then broken() for good and the
// caller drops it. A Redis error reply (-ERR, -NOSCRIPT, -OOM, ...) is a
// reply, not a Status: the stream is intact.
//
// Thread-safety: not thread-safe; one user at a time (Pool hands them out).
#ifndef TOOLGATE_CORE_REDIS_CONNECTION_H_
#define TOOLGATE_CORE_REDIS_CONNECTION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "core/redis/address.h"
#include "core/redis/transport.h"

namespace toolgate::redis {

struct Reply {
  enum class Type { kNil, kString, kStatus, kError, kInteger, kArray };
  Type type = Type::kNil;
  std::string str;  // kString, kStatus, kError.
  int64_t integer = 0;
  std::vector<Reply> elements;  // kArray.

  bool is_error() const { return type == Type::kError; }
};

// A command: its words, binary-safe.
using Command = std::vector<std::string>;

struct ConnectOptions {
  Address address;
  std::string password;  // Empty: no AUTH.
  TlsPem tls;            // With rediss://.
};

class Connection {
 public:
  // Connects, handshakes (TLS), authenticates and selects the database,
  // all before `deadline`. UNAVAILABLE (cannot reach), DEADLINE_EXCEEDED,
  // UNAUTHENTICATED (AUTH refused), INVALID_ARGUMENT (a TLS file that does
  // not load), each message naming the store and the flag to look at.
  static absl::StatusOr<std::unique_ptr<Connection>> Open(
      const ConnectOptions& options, absl::Time deadline);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Writes every command, then reads one reply each: one round trip.
  absl::StatusOr<std::vector<Reply>> Pipeline(absl::Span<const Command> commands,
                                              absl::Time deadline);
  absl::StatusOr<Reply> Run(const Command& command, absl::Time deadline);

  // Subscribers: the next pushed reply, or nullopt at `deadline` with the
  // stream still intact (a partial reply stays buffered).
  absl::StatusOr<std::optional<Reply>> Next(absl::Time deadline);
  // Writes without reading a reply (SUBSCRIBE's replies come via Next).
  absl::Status Send(absl::Span<const Command> commands, absl::Time deadline);

  bool broken() const { return broken_; }
  // Idle and closed by the store (it restarted, or dropped us): not worth
  // sending a request on.
  bool Stale() const { return transport_->PeerClosed(); }

 private:
  explicit Connection(std::unique_ptr<Transport> transport);
  absl::Status Fail(absl::Status status);
  // One complete reply from what was read, or nullopt.
  absl::StatusOr<std::optional<Reply>> Parsed();

  std::unique_ptr<Transport> transport_;
  void* reader_ = nullptr;  // redisReader.
  bool broken_ = false;
};

}  // namespace toolgate::redis

#endif  // TOOLGATE_CORE_REDIS_CONNECTION_H_
