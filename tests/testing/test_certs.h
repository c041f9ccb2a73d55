// A throw-away PKI for TLS tests, made at test time with the openssl CLI
// (see make_test_certs.sh for what each file is).
#ifndef TOOLGATE_TESTS_TESTING_TEST_CERTS_H_
#define TOOLGATE_TESTS_TESTING_TEST_CERTS_H_

#include <string>

namespace toolgate {
namespace testutil {

class TestCerts {
 public:
  // Generates into a fresh directory under TEST_TMPDIR; ok() says whether
  // that worked.
  TestCerts();

  bool ok() const { return ok_; }
  // Path of e.g. "server.crt" in the directory.
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  // A file written with `content` in the directory; returns its path.
  std::string Write(const std::string& name, const std::string& content) const;

 private:
  std::string dir_;
  bool ok_ = false;
};

// The whole content of a file ("" if unreadable).
std::string ReadAll(const std::string& path);

}  // namespace testutil
}  // namespace toolgate

#endif  // TOOLGATE_TESTS_TESTING_TEST_CERTS_H_
