// Table-driven harness for toolgatectl tests: each CliCase runs RunCli
// against a fresh FakeServer and checks the exit status, the output and
// the request the server received.
#ifndef TOOLGATE_CLIENT_CLI_TEST_UTIL_H_
#define TOOLGATE_CLIENT_CLI_TEST_UTIL_H_

#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "client/fake_toolgate.h"
#include "google/protobuf/message.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace client {
namespace testing {

struct CliCase {
  std::string name;
  // "{addr}" (the fake server), "{closed}" (nothing listening) and "{tmp}"
  // (a per-case directory) are substituted. The default address
  // ($TOOLGATE_ADDR) points at the fake server.
  std::vector<std::string> args;
  std::function<void(FakeServer&)> script = [](FakeServer&) {};
  int exit_code = 0;
  std::string out_has;
  std::string err_has;
  std::string stdin_text;
  std::map<std::string, std::string> files;  // Written under {tmp}.
  // Checks what the server received (or that it received nothing).
  std::function<void(FakeToolGate&)> check = [](FakeToolGate&) {};
};

void PrintTo(const CliCase& c, std::ostream* os);
std::string CliCaseName(const ::testing::TestParamInfo<CliCase>& info);

// Runs one case; reports failures through gtest.
void RunCliCase(const CliCase& c);

std::function<void(FakeServer&)> Reply(const std::string& method,
                                       const google::protobuf::Message& msg);
std::function<void(FakeServer&)> Fail(const std::string& method,
                                      grpc::StatusCode code);
std::function<void(FakeToolGate&)> NoCall(const std::string& method);

template <typename Request>
std::function<void(FakeToolGate&)> Sent(
    const std::string& method, std::function<void(const Request&)> expect) {
  return [method, expect](FakeToolGate& fake) {
    Request request;
    ASSERT_TRUE(fake.LastRequest(method, &request)) << method << " not called";
    expect(request);
  };
}

// $TEST_TMPDIR, or /tmp outside Bazel.
std::string TmpDir();

}  // namespace testing
}  // namespace client
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_CLI_TEST_UTIL_H_
