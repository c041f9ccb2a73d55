#include "server/raw_service.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "server/request_diagnosis.h"

namespace toolgate {
namespace server {
namespace {

using ::testing::HasSubstr;

TEST(RawToolGateService, ServesEveryRpcOfTheProto) {
  const google::protobuf::ServiceDescriptor* proto =
      v1::CreateSnapshotRequest::descriptor()->file()->FindServiceByName(
          "ToolGate");
  ASSERT_NE(proto, nullptr);
  std::vector<std::string> want;
  for (int i = 0; i < proto->method_count(); ++i) {
    want.push_back(proto->method(i)->name());
  }
  ToolGateService typed(nullptr, nullptr, SnapshotCreate::kAdmin);
  RawToolGateService raw(&typed);
  EXPECT_EQ(raw.methods(), want);
}

// Wire-format helpers: a length-delimited field.
std::string Field(int number, const std::string& bytes) {
  std::string out(1, static_cast<char>(number << 3 | 2));
  out.push_back(static_cast<char>(bytes.size()));  // Short values only.
  return out + bytes;
}

struct Case {
  std::string name;
  const google::protobuf::Descriptor* type;
  std::string bytes;
  std::string message;
};

TEST(DiagnoseUnparsableRequest, NamesTheFieldWithInvalidUtf8) {
  const std::string bad = "ok\xff";
  const std::vector<Case> cases = {
      {"top_level", v1::ValidateToolCallRequest::descriptor(),
       Field(1, "sha256:x") + Field(4, bad),
       "field text of toolgate.v1.ValidateToolCallRequest is not valid UTF-8 "
       "(first bad byte at offset 2)"},
      {"map_value", v1::OpenRunRequest::descriptor(),
       Field(3, Field(1, "team") + Field(2, bad)),
       "field context[\"team\"] of toolgate.v1.OpenRunRequest"},
      {"map_key", v1::OpenRunRequest::descriptor(),
       Field(3, Field(1, bad) + Field(2, "v")),
       "field context (a key) of toolgate.v1.OpenRunRequest"},
      {"every_occurrence_is_checked", v1::CreateSnapshotRequest::descriptor(),
       Field(3, "fine") + Field(3, bad), "field name of"},
      {"truncated", v1::GetSnapshotRequest::descriptor(),
       std::string("\x0a\x10short", 7),
       "the request is not a well-formed toolgate.v1.GetSnapshotRequest"},
      {"zero_tag", v1::GetSnapshotRequest::descriptor(),
       std::string("\x00\x01", 2), "not a well-formed"},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(DiagnoseUnparsableRequest(c.bytes, *c.type),
                HasSubstr(c.message))
        << c.name;
  }
}

TEST(ParseRequest, InvalidUtf8IsInvalidArgumentNamingTheField) {
  const std::string bytes = Field(4, "\xc3\x28");
  grpc::Slice slice(bytes);
  grpc::ByteBuffer buffer(&slice, 1);
  v1::ValidateToolOutputRequest request;
  grpc::Status s = ParseRequest(buffer, &request);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("field tool_name of"));

  v1::ValidateToolOutputRequest good;
  good.set_tool_name("get_customer");
  good.set_body("\xff\xfe");  // bytes: anything goes.
  const std::string serialized = good.SerializeAsString();
  grpc::Slice good_slice(serialized);
  grpc::ByteBuffer good_buffer(&good_slice, 1);
  ASSERT_TRUE(ParseRequest(good_buffer, &request).ok());
  EXPECT_EQ(request.tool_name(), "get_customer");
  EXPECT_EQ(request.body(), "\xff\xfe");
}

}  // namespace
}  // namespace server
}  // namespace toolgate
