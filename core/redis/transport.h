// The byte stream under a Connection: a non-blocking socket (TCP or unix),
// optionally wrapped in TLS, with every operation bounded by a deadline
// (poll, never a blocking syscall). Internal to core/redis.
//
// Thread-safety: not thread-safe.
#ifndef TOOLGATE_CORE_REDIS_TRANSPORT_H_
#define TOOLGATE_CORE_REDIS_TRANSPORT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "core/redis/address.h"

namespace toolgate::redis {

// PEM text, read and checked at start-up (core/util/tls_files.h), so a
// reconnect never reads a file again.
struct TlsPem {
  std::string ca;    // Empty: the system's default roots.
  std::string cert;  // Client certificate and key: both or neither.
  std::string key;
};

class Transport {
 public:
  // Connects (and handshakes, verifying the server's certificate against
  // tls.ca and its name or IP against the address' host) before `deadline`.
  static absl::StatusOr<std::unique_ptr<Transport>> Open(
      const Address& address, const TlsPem& tls, absl::Time deadline);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  absl::Status WriteAll(absl::string_view bytes, absl::Time deadline);
  // Reads what is available (at most `max`), waiting until `deadline`:
  // 0 bytes when the deadline passed with nothing to read. A closed peer
  // is UNAVAILABLE.
  absl::StatusOr<size_t> ReadSome(char* buffer, size_t max,
                                  absl::Time deadline);

  // Whether the peer has closed the connection (EOF or reset pending on an
  // idle socket); does not block or consume anything.
  bool PeerClosed() const;

  // "the state store redis://host:port/0": the start of every message.
  const std::string& name() const { return name_; }

 private:
  Transport(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}
  absl::Status StartTls(const Address& address, const TlsPem& tls,
                        absl::Time deadline);
  // Waits until the socket is readable (`read`) or writable, or deadline:
  // false at the deadline.
  absl::StatusOr<bool> Wait(bool read, absl::Time deadline);

  int fd_ = -1;
  std::string name_;
  void* ctx_ = nullptr;  // SSL_CTX, with TLS.
  void* ssl_ = nullptr;  // SSL, with TLS.
};

}  // namespace toolgate::redis

#endif  // TOOLGATE_CORE_REDIS_TRANSPORT_H_
