#include "core/util/tls_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/test_certs.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;
using testutil::ReadAll;
using testutil::TestCerts;

class TlsFilesTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(certs_.ok()) << "openssl failed"; }
  TestCerts certs_;
};

TEST_F(TlsFilesTest, MatchingPairIsReadVerbatim) {
  auto pair = ReadPemKeyPair(certs_.Path("server.crt"), "tls_cert_file",
                             certs_.Path("server.key"), "tls_key_file");
  ASSERT_TRUE(pair.ok()) << pair.status();
  EXPECT_EQ(pair->cert_pem, ReadAll(certs_.Path("server.crt")));
  EXPECT_EQ(pair->key_pem, ReadAll(certs_.Path("server.key")));
}

TEST_F(TlsFilesTest, CaBundleOfSeveralCertificatesIsAccepted) {
  const std::string bundle =
      certs_.Write("bundle.crt", ReadAll(certs_.Path("ca.crt")) +
                                     ReadAll(certs_.Path("other_ca.crt")));
  EXPECT_TRUE(ReadPemCertificates(bundle, "tls_client_ca_file").ok());
}

// Each bad configuration is refused, and the message names the flag and
// says what is wrong.
TEST_F(TlsFilesTest, BadKeyPairsAreRefusedNamingTheFlag) {
  const std::string empty = certs_.Write("empty.pem", " \n");
  const std::string junk = certs_.Write("junk.pem", "not a certificate\n");
  const std::string truncated = certs_.Write(
      "truncated.crt", ReadAll(certs_.Path("server.crt")).substr(0, 200));
  struct Case {
    std::string cert, key, flag, why;
  } cases[] = {
      {certs_.Path("missing.crt"), certs_.Path("server.key"), "--tls_cert_file",
       "cannot read"},
      {empty, certs_.Path("server.key"), "--tls_cert_file", "is empty"},
      {junk, certs_.Path("server.key"), "--tls_cert_file",
       "no PEM certificate"},
      {truncated, certs_.Path("server.key"), "--tls_cert_file",
       "no PEM certificate"},
      {certs_.Path("server.crt"), certs_.Path("missing.key"), "--tls_key_file",
       "cannot read"},
      {certs_.Path("server.crt"), empty, "--tls_key_file", "is empty"},
      {certs_.Path("server.crt"), junk, "--tls_key_file", "no unencrypted PEM"},
      // A certificate where the key should be.
      {certs_.Path("server.crt"), certs_.Path("server.crt"), "--tls_key_file",
       "no unencrypted PEM"},
      {certs_.Path("server.crt"), certs_.Path("client.key"), "--tls_key_file",
       "is not the private key of the certificate in --tls_cert_file"},
  };
  for (const Case& c : cases) {
    auto pair = ReadPemKeyPair(c.cert, "tls_cert_file", c.key, "tls_key_file");
    ASSERT_FALSE(pair.ok()) << c.cert << " " << c.key;
    EXPECT_EQ(pair.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(pair.status().message(), HasSubstr(c.flag + ": "));
    EXPECT_THAT(pair.status().message(), HasSubstr(c.why));
  }
}

TEST_F(TlsFilesTest, BadCaFilesAreRefusedNamingTheFlag) {
  const std::string junk_after =
      certs_.Write("junk_after.crt", ReadAll(certs_.Path("ca.crt")) +
                                         "-----BEGIN CERTIFICATE-----\nAAAA\n"
                                         "-----END CERTIFICATE-----\n");
  struct Case {
    std::string path, why;
  } cases[] = {
      {certs_.Path("missing.crt"), "cannot read"},
      {certs_.Write("empty_ca.pem", ""), "is empty"},
      {certs_.Path("ca.key"), "no PEM certificate"},
      {junk_after, "certificate 2 does not parse"},
  };
  for (const Case& c : cases) {
    auto pem = ReadPemCertificates(c.path, "tls_client_ca_file");
    ASSERT_FALSE(pem.ok()) << c.path;
    EXPECT_THAT(pem.status().message(), HasSubstr("--tls_client_ca_file: "));
    EXPECT_THAT(pem.status().message(), HasSubstr(c.why));
  }
}

// --tls_cert_file=/dev/urandom hung start-up (issue 25): every TLS file is
// a regular file up to 1 MiB; anything else is refused at once, naming the
// flag, the path and what it is.
TEST_F(TlsFilesTest, NonRegularAndOversizeFilesAreRefusedNamingTheFlag) {
  const std::string fifo = certs_.Path("fifo.crt");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string dir = certs_.Path("dir.crt");
  ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
  const std::string link = certs_.Path("urandom.crt");
  ASSERT_EQ(symlink("/dev/urandom", link.c_str()), 0);
  // A valid certificate padded past 1 MiB: refused before it is parsed.
  const std::string big = certs_.Write(
      "big.crt", ReadAll(certs_.Path("server.crt")) +
                     std::string((1 << 20) + 1, '\n'));
  struct Case {
    std::string cert, key, flag, why;
  } cases[] = {
      {"/dev/urandom", certs_.Path("server.key"), "--tls_cert_file",
       "/dev/urandom: is a character device, not a regular file"},
      {link, certs_.Path("server.key"), "--tls_cert_file",
       link + ": is a character device, not a regular file"},
      {fifo, certs_.Path("server.key"), "--tls_cert_file",
       fifo + ": is a FIFO, not a regular file"},
      {dir, certs_.Path("server.key"), "--tls_cert_file",
       dir + ": is a directory, not a regular file"},
      {big, certs_.Path("server.key"), "--tls_cert_file",
       big + ": is larger than 1048576 bytes"},
      {certs_.Path("server.crt"), "/dev/zero", "--tls_key_file",
       "/dev/zero: is a character device, not a regular file"},
      {certs_.Path("server.crt"), fifo, "--tls_key_file",
       fifo + ": is a FIFO, not a regular file"},
  };
  for (const Case& c : cases) {
    auto pair = ReadPemKeyPair(c.cert, "tls_cert_file", c.key, "tls_key_file");
    ASSERT_FALSE(pair.ok()) << c.cert << " " << c.key;
    EXPECT_EQ(pair.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(pair.status().message(), c.flag + ": " + c.why);
  }
  auto ca = ReadPemCertificates(fifo, "tls_client_ca_file");
  EXPECT_EQ(ca.status().message(),
            "--tls_client_ca_file: " + fifo + ": is a FIFO, not a regular file");
}

}  // namespace
}  // namespace toolgate
