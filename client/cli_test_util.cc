#include "client/cli_test_util.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/str_replace.h"
#include "client/cli.h"

namespace toolgate {
namespace client {
namespace testing {

void PrintTo(const CliCase& c, std::ostream* os) { *os << c.name; }

std::string CliCaseName(const ::testing::TestParamInfo<CliCase>& info) {
  return info.param.name;
}

std::function<void(FakeServer&)> Reply(const std::string& method,
                                       const google::protobuf::Message& msg) {
  std::shared_ptr<google::protobuf::Message> copy(msg.New());
  copy->CopyFrom(msg);
  return [method, copy](FakeServer& s) { s.service().Reply(method, *copy); };
}

std::function<void(FakeServer&)> Fail(const std::string& method,
                                      grpc::StatusCode code) {
  return [method, code](FakeServer& s) {
    s.service().Fail(method, grpc::Status(code, "scripted"));
  };
}

std::function<void(FakeToolGate&)> NoCall(const std::string& method) {
  return [method](FakeToolGate& fake) {
    EXPECT_EQ(fake.CallCount(method), 0) << method << " must not be called";
  };
}

std::string TmpDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

void RunCliCase(const CliCase& c) {
  FakeServer server;
  c.script(server);
  const std::string tmp = TmpDir() + "/" + c.name;
  std::filesystem::create_directories(tmp);
  for (const auto& [file, content] : c.files) {
    std::ofstream(tmp + "/" + file, std::ios::binary) << content;
  }
  const std::string closed = ClosedAddress();
  std::vector<std::string> args;
  for (const std::string& arg : c.args) {
    args.push_back(absl::StrReplaceAll(
        arg, {{"{addr}", server.address()}, {"{closed}", closed},
              {"{tmp}", tmp}}));
  }
  std::istringstream in(c.stdin_text);
  std::ostringstream out, err;
  setenv(kAddressEnvVar, server.address().c_str(), 1);

  const int code = RunCli(args, in, out, err, DefaultChannelFactory());
  unsetenv(kAddressEnvVar);

  EXPECT_EQ(code, c.exit_code) << "stdout: " << out.str()
                               << "\nstderr: " << err.str();
  EXPECT_NE(out.str().find(c.out_has), std::string::npos) << out.str();
  EXPECT_NE(err.str().find(c.err_has), std::string::npos) << err.str();
  c.check(server.service());
}

}  // namespace testing
}  // namespace client
}  // namespace toolgate
