#include "core/redis/transport.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/redis/tls_context.h"

namespace toolgate::redis {
namespace {

int PollMillis(absl::Time deadline) {
  const absl::Duration left = deadline - absl::Now();
  if (left <= absl::ZeroDuration()) return 0;
  // Round up, so a deadline 0.3 ms away still waits instead of spinning.
  return static_cast<int>(absl::ToInt64Milliseconds(left)) + 1;
}

std::string OpenSslError() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown TLS error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

// A non-blocking socket connected (or connecting) to one resolved address.
absl::StatusOr<int> ConnectTo(const sockaddr* addr, socklen_t len, int family) {
  const int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::UnavailableError(strerror(errno));
  if (connect(fd, addr, len) != 0 && errno != EINPROGRESS) {
    const int e = errno;
    close(fd);
    return absl::UnavailableError(strerror(e));
  }
  if (family != AF_UNIX) {
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  return fd;
}

absl::StatusOr<int> Dial(const Address& address) {
  if (address.transport == Address::Transport::kUnix) {
    sockaddr_un un{};
    un.sun_family = AF_UNIX;
    if (address.path.size() >= sizeof(un.sun_path)) {
      return absl::InvalidArgumentError("socket path too long");
    }
    memcpy(un.sun_path, address.path.data(), address.path.size());
    return ConnectTo(reinterpret_cast<sockaddr*>(&un), sizeof(un), AF_UNIX);
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = absl::StrCat(address.port);
  const int rc = getaddrinfo(address.host.c_str(), port.c_str(), &hints, &found);
  if (rc != 0) return absl::UnavailableError(gai_strerror(rc));
  absl::StatusOr<int> fd = absl::UnavailableError("no address");
  for (addrinfo* a = found; a != nullptr && !fd.ok(); a = a->ai_next) {
    fd = ConnectTo(a->ai_addr, a->ai_addrlen, a->ai_family);
  }
  freeaddrinfo(found);
  return fd;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Transport>> Transport::Open(
    const Address& address, const TlsPem& tls, absl::Time deadline) {
  const std::string name = absl::StrCat("state store ", address.ToString());
  absl::StatusOr<int> fd = Dial(address);
  if (!fd.ok()) {
    return absl::UnavailableError(
        absl::StrCat(name, ": cannot connect: ", fd.status().message()));
  }
  std::unique_ptr<Transport> t(new Transport(*fd, name));
  absl::StatusOr<bool> writable = t->Wait(/*read=*/false, deadline);
  if (!writable.ok()) return writable.status();
  if (!*writable) {
    return absl::DeadlineExceededError(
        absl::StrCat(name, ": no connection within the timeout"));
  }
  int err = 0;
  socklen_t len = sizeof(err);
  getsockopt(t->fd_, SOL_SOCKET, SO_ERROR, &err, &len);
  if (err != 0) {
    return absl::UnavailableError(
        absl::StrCat(name, ": cannot connect: ", strerror(err)));
  }
  if (address.transport == Address::Transport::kTls) {
    absl::Status s = t->StartTls(address, tls, deadline);
    if (!s.ok()) return s;
  }
  return t;
}

Transport::~Transport() {
  if (ssl_ != nullptr) SSL_free(static_cast<SSL*>(ssl_));
  if (ctx_ != nullptr) SSL_CTX_free(static_cast<SSL_CTX*>(ctx_));
  if (fd_ >= 0) close(fd_);
}

absl::StatusOr<bool> Transport::Wait(bool read, absl::Time deadline) {
  pollfd p{fd_, static_cast<short>(read ? POLLIN : POLLOUT), 0};
  for (;;) {
    const int n = poll(&p, 1, PollMillis(deadline));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) {
      return absl::UnavailableError(absl::StrCat(name_, ": ", strerror(errno)));
    }
  }
}

absl::Status Transport::StartTls(const Address& address, const TlsPem& tls,
                                 absl::Time deadline) {
  absl::StatusOr<SSL_CTX*> ctx = ClientContext(tls);
  if (!ctx.ok()) return ctx.status();
  ctx_ = *ctx;
  SSL* ssl = SSL_new(*ctx);
  ssl_ = ssl;
  if (ssl == nullptr || SSL_set_fd(ssl, fd_) != 1) {
    return absl::InternalError(absl::StrCat(name_, ": ", OpenSslError()));
  }
  absl::Status peer = ExpectPeer(ssl, address.host);
  if (!peer.ok()) return peer;
  for (;;) {
    const int rc = SSL_connect(ssl);
    if (rc == 1) return absl::OkStatus();
    const int e = SSL_get_error(ssl, rc);
    if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
      const long verify = SSL_get_verify_result(ssl);
      return absl::UnavailableError(absl::StrCat(
          name_, ": TLS handshake failed: ",
          verify != X509_V_OK ? absl::StrCat(X509_verify_cert_error_string(verify),
                                             " (check --state_store_ca_file)")
                              : OpenSslError()));
    }
    absl::StatusOr<bool> ready = Wait(e == SSL_ERROR_WANT_READ, deadline);
    if (!ready.ok()) return ready.status();
    if (!*ready) {
      return absl::DeadlineExceededError(
          absl::StrCat(name_, ": TLS handshake timed out"));
    }
  }
}

absl::Status Transport::WriteAll(absl::string_view bytes, absl::Time deadline) {
  while (!bytes.empty()) {
    ssize_t n;
    bool want_read = false;
    if (ssl_ != nullptr) {
      n = SSL_write(static_cast<SSL*>(ssl_), bytes.data(),
                    static_cast<int>(bytes.size()));
      if (n <= 0) {
        const int e = SSL_get_error(static_cast<SSL*>(ssl_), n);
        if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
          return absl::UnavailableError(
              absl::StrCat(name_, ": write failed: ", OpenSslError()));
        }
        want_read = e == SSL_ERROR_WANT_READ;
        n = 0;
      }
    } else {
      n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno != EAGAIN && errno != EINTR) {
        return absl::UnavailableError(
            absl::StrCat(name_, ": write failed: ", strerror(errno)));
      }
      if (n < 0) n = 0;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
    if (bytes.empty()) break;
    absl::StatusOr<bool> ready = Wait(want_read, deadline);
    if (!ready.ok()) return ready.status();
    if (!*ready) {
      return absl::DeadlineExceededError(
          absl::StrCat(name_, ": timed out writing"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<size_t> Transport::ReadSome(char* buffer, size_t max,
                                           absl::Time deadline) {
  for (;;) {
    bool want_write = false;
    if (ssl_ != nullptr) {
      const int n = SSL_read(static_cast<SSL*>(ssl_), buffer,
                             static_cast<int>(max));
      if (n > 0) return static_cast<size_t>(n);
      const int e = SSL_get_error(static_cast<SSL*>(ssl_), n);
      if (e == SSL_ERROR_ZERO_RETURN) {
        return absl::UnavailableError(absl::StrCat(name_, ": closed"));
      }
      if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
        return absl::UnavailableError(
            absl::StrCat(name_, ": read failed: ", OpenSslError()));
      }
      want_write = e == SSL_ERROR_WANT_WRITE;
    } else {
      const ssize_t n = recv(fd_, buffer, max, 0);
      if (n > 0) return static_cast<size_t>(n);
      if (n == 0) return absl::UnavailableError(absl::StrCat(name_, ": closed"));
      if (errno != EAGAIN && errno != EINTR) {
        return absl::UnavailableError(
            absl::StrCat(name_, ": read failed: ", strerror(errno)));
      }
    }
    absl::StatusOr<bool> ready = Wait(!want_write, deadline);
    if (!ready.ok()) return ready.status();
    if (!*ready) return 0;
  }
}

bool Transport::PeerClosed() const {
  // The raw socket, TLS or not: a TLS record waiting (a session ticket)
  // reads as data, not as a close.
  char byte;
  const ssize_t n = recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

}  // namespace toolgate::redis
