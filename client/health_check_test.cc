#include "client/health_check.h"

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "client/fake_toolgate.h"
#include "grpcpp/health_check_service_interface.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace client {
namespace {

TEST(EncodeHealthCheckRequestTest, MatchesProtobufWireFormat) {
  EXPECT_EQ(EncodeHealthCheckRequest(""), "");
  // Field 1, wire type 2 (0x0A), length, bytes.
  EXPECT_EQ(EncodeHealthCheckRequest("toolgate.v1.ToolGate"),
            std::string("\x0A\x14toolgate.v1.ToolGate"));
  const std::string long_name(200, 'x');
  // 200 needs a two-byte varint: 0xC8 0x01.
  EXPECT_EQ(EncodeHealthCheckRequest(long_name),
            std::string("\x0A\xC8\x01", 3) + long_name);
}

struct DecodeCase {
  std::string name;
  std::string bytes;
  bool ok;
  int status;
};

class DecodeHealthCheckResponseTest
    : public ::testing::TestWithParam<DecodeCase> {};

TEST_P(DecodeHealthCheckResponseTest, OnlyWellFormedBytesDecode) {
  const DecodeCase& c = GetParam();
  absl::StatusOr<int> status = DecodeHealthCheckResponse(c.bytes);
  ASSERT_EQ(status.ok(), c.ok) << status.status();
  if (c.ok) {
    EXPECT_EQ(*status, c.status);
  } else {
    EXPECT_EQ(status.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, DecodeHealthCheckResponseTest,
    ::testing::Values(
        DecodeCase{"Empty", "", true, kHealthUnknown},
        DecodeCase{"Serving", std::string("\x08\x01", 2), true,
                   kHealthServing},
        DecodeCase{"NotServing", std::string("\x08\x02", 2), true,
                   kHealthNotServing},
        DecodeCase{"ServiceUnknown", std::string("\x08\x03", 2), true,
                   kHealthServiceUnknown},
        DecodeCase{"OutOfEnum", std::string("\x08\x07", 2), true, 7},
        DecodeCase{"UnknownFieldSkipped",
                   std::string("\x12\x02hi\x08\x01", 6), true,
                   kHealthServing},
        DecodeCase{"LastValueWins", std::string("\x08\x02\x08\x01", 4), true,
                   kHealthServing},
        DecodeCase{"WrongWireType", std::string("\x0A\x01\x01", 3), false, 0},
        DecodeCase{"TruncatedVarint", std::string("\x08", 1), false, 0},
        DecodeCase{"TruncatedUnknownField", std::string("\x12\x05hi", 4),
                   false, 0},
        DecodeCase{"ZeroTag", std::string("\x00\x01", 2), false, 0}),
    [](const ::testing::TestParamInfo<DecodeCase>& info) {
      return info.param.name;
    });

TEST(HealthStatusNameTest, NamesEveryValue) {
  EXPECT_EQ(HealthStatusName(kHealthUnknown), "UNKNOWN");
  EXPECT_EQ(HealthStatusName(kHealthServing), "SERVING");
  EXPECT_EQ(HealthStatusName(kHealthNotServing), "NOT_SERVING");
  EXPECT_EQ(HealthStatusName(kHealthServiceUnknown), "SERVICE_UNKNOWN");
  EXPECT_EQ(HealthStatusName(9), "UNRECOGNIZED_9");
}

// Against gRPC's own health service: proves the hand-rolled bytes are what
// the real implementation reads and writes.
TEST(CheckHealthTest, TalksToTheRealHealthService) {
  testing::FakeServer server;
  grpc::HealthCheckServiceInterface* health =
      server.server().GetHealthCheckService();
  ASSERT_NE(health, nullptr);
  health->SetServingStatus("toolgate.v1.ToolGate", true);
  health->SetServingStatus("paused", false);

  struct Case {
    std::string service;
    absl::StatusCode code;
    int status;
  };
  const std::vector<Case> cases = {
      {"", absl::StatusCode::kOk, kHealthServing},
      {"toolgate.v1.ToolGate", absl::StatusCode::kOk, kHealthServing},
      {"paused", absl::StatusCode::kOk, kHealthNotServing},
      {"no.such.Service", absl::StatusCode::kNotFound, 0},
  };
  for (const Case& c : cases) {
    absl::StatusOr<int> status =
        CheckHealth(server.NewChannel(), c.service, absl::Seconds(5));
    ASSERT_EQ(status.status().code(), c.code) << c.service << " "
                                              << status.status();
    if (status.ok()) {
      EXPECT_EQ(*status, c.status) << c.service;
    }
  }

  health->SetServingStatus(false);
  absl::StatusOr<int> all_down =
      CheckHealth(server.NewChannel(), "", absl::Seconds(5));
  ASSERT_TRUE(all_down.ok()) << all_down.status();
  EXPECT_EQ(*all_down, kHealthNotServing);
}

TEST(CheckHealthTest, ServerNotRunningIsUnavailable) {
  absl::StatusOr<int> status = CheckHealth(
      grpc::CreateChannel(testing::ClosedAddress(),
                          grpc::InsecureChannelCredentials()),
      "", absl::Seconds(2));
  EXPECT_EQ(status.status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace client
}  // namespace toolgate
