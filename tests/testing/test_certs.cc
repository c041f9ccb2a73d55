#include "tests/testing/test_certs.h"

#include <stdlib.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/testing/server_process.h"

namespace toolgate {
namespace testutil {

TestCerts::TestCerts() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string templ = std::string(tmp ? tmp : "/tmp") + "/certs.XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) return;
  dir_ = templ;
  const std::string command =
      Runfile("tests/testing/make_test_certs.sh") + " '" + dir_ + "'";
  ok_ = std::system(command.c_str()) == 0;
}

std::string TestCerts::Write(const std::string& name,
                             const std::string& content) const {
  const std::string path = Path(name);
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

}  // namespace testutil
}  // namespace toolgate
