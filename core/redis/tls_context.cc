#include "core/redis/tls_context.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <memory>

#include "absl/strings/str_cat.h"

namespace toolgate::redis {
namespace {

using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;

Bio MemoryBio(const std::string& pem) {
  return Bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())),
             &BIO_free);
}

absl::Status Refused(absl::string_view flag) {
  ERR_clear_error();
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, ": does not load as PEM for TLS to Redis"));
}

// Every certificate of `pem` added to the context's trust store.
absl::Status AddRoots(SSL_CTX* ctx, const std::string& pem) {
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  Bio bio = MemoryBio(pem);
  int added = 0;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    const int ok = X509_STORE_add_cert(store, cert);
    X509_free(cert);
    if (ok != 1) return Refused("state_store_ca_file");
    ++added;
  }
  ERR_clear_error();  // The end of the bundle reads as an error.
  if (added == 0) return Refused("state_store_ca_file");
  return absl::OkStatus();
}

absl::Status UseClientPair(SSL_CTX* ctx, const TlsPem& tls) {
  Bio cert_bio = MemoryBio(tls.cert);
  X509* cert = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr);
  const bool cert_ok = cert != nullptr && SSL_CTX_use_certificate(ctx, cert) == 1;
  X509_free(cert);
  if (!cert_ok) return Refused("state_store_cert_file");
  Bio key_bio = MemoryBio(tls.key);
  EVP_PKEY* key =
      PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr);
  const bool key_ok = key != nullptr && SSL_CTX_use_PrivateKey(ctx, key) == 1 &&
                      SSL_CTX_check_private_key(ctx) == 1;
  EVP_PKEY_free(key);
  if (!key_ok) return Refused("state_store_key_file");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SSL_CTX*> ClientContext(const TlsPem& tls) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (ctx == nullptr) return absl::InternalError("cannot create a TLS context");
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  absl::Status s = tls.ca.empty()
                       ? (SSL_CTX_set_default_verify_paths(ctx) == 1
                              ? absl::OkStatus()
                              : Refused("state_store_ca_file"))
                       : AddRoots(ctx, tls.ca);
  if (s.ok() && (!tls.cert.empty() || !tls.key.empty())) {
    s = UseClientPair(ctx, tls);
  }
  if (!s.ok()) {
    SSL_CTX_free(ctx);
    return s;
  }
  return ctx;
}

absl::Status ExpectPeer(SSL* ssl, const std::string& host) {
  in6_addr ip6;
  in_addr ip4;
  const bool is_ip = inet_pton(AF_INET, host.c_str(), &ip4) == 1 ||
                     inet_pton(AF_INET6, host.c_str(), &ip6) == 1;
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  int ok;
  if (is_ip) {
    ok = X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str());
  } else {
    ok = SSL_set_tlsext_host_name(ssl, host.c_str()) == 1 &&
         SSL_set1_host(ssl, host.c_str()) == 1;
  }
  if (ok != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        absl::StrCat("cannot verify the state store's name ", host));
  }
  return absl::OkStatus();
}

}  // namespace toolgate::redis
