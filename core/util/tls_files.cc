#include "core/util/tls_files.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/util/regular_file.h"

namespace toolgate {
namespace {

// PEM files are small; anything bigger is the wrong file.
constexpr size_t kMaxPemBytes = 1 << 20;

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyFree>;

absl::Status Bad(absl::string_view flag, const std::string& path,
                 absl::string_view why) {
  ERR_clear_error();  // Leave no stale error for the next OpenSSL user.
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, ": ", path, ": ", why));
}

absl::StatusOr<std::string> ReadPemFile(const std::string& path,
                                        absl::string_view flag) {
  absl::StatusOr<std::string> pem = ReadRegularFile(path, kMaxPemBytes);
  if (!pem.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": ", pem.status().message()));
  }
  if (absl::StripAsciiWhitespace(*pem).empty())
    return Bad(flag, path, "is empty");
  return pem;
}

BioPtr MemBio(const std::string& pem) {
  return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// Every PEM block must be a certificate, and there must be one at least.
absl::Status CheckCertificates(const std::string& pem, absl::string_view flag,
                               const std::string& path) {
  ERR_clear_error();  // Judge only this file's errors below.
  BioPtr bio = MemBio(pem);
  int count = 0;
  for (;;) {
    X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (cert == nullptr) break;
    ++count;
  }
  const unsigned long err = ERR_peek_last_error();
  const bool clean_end = ERR_GET_LIB(err) == ERR_LIB_PEM &&
                         ERR_GET_REASON(err) == PEM_R_NO_START_LINE;
  if (count == 0) return Bad(flag, path, "no PEM certificate in it");
  if (err != 0 && !clean_end) {
    return Bad(flag, path,
               absl::StrCat("certificate ", count + 1, " does not parse"));
  }
  ERR_clear_error();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> ReadPemCertificates(const std::string& path,
                                                absl::string_view flag) {
  absl::StatusOr<std::string> pem = ReadPemFile(path, flag);
  if (!pem.ok()) return pem.status();
  if (absl::Status s = CheckCertificates(*pem, flag, path); !s.ok()) return s;
  return pem;
}

absl::StatusOr<TlsKeyPair> ReadPemKeyPair(const std::string& cert_path,
                                          absl::string_view cert_flag,
                                          const std::string& key_path,
                                          absl::string_view key_flag) {
  absl::StatusOr<std::string> cert_pem =
      ReadPemCertificates(cert_path, cert_flag);
  if (!cert_pem.ok()) return cert_pem.status();
  absl::StatusOr<std::string> key_pem = ReadPemFile(key_path, key_flag);
  if (!key_pem.ok()) return key_pem.status();
  BioPtr cert_bio = MemBio(*cert_pem);
  X509Ptr cert(PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr));
  BioPtr key_bio = MemBio(*key_pem);
  // A null passphrase callback that refuses: an encrypted key is an error
  // here, not a prompt on a terminal nobody watches.
  KeyPtr key(PEM_read_bio_PrivateKey(
      key_bio.get(), nullptr, [](char*, int, int, void*) { return -1; },
      nullptr));
  if (cert == nullptr) return Bad(cert_flag, cert_path, "does not parse");
  if (key == nullptr) {
    return Bad(key_flag, key_path, "no unencrypted PEM private key in it");
  }
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    return Bad(key_flag, key_path,
               absl::StrCat("is not the private key of the certificate in --",
                            cert_flag, " (", cert_path, ")"));
  }
  ERR_clear_error();
  return TlsKeyPair{*std::move(cert_pem), *std::move(key_pem)};
}

}  // namespace toolgate
