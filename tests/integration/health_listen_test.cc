// --health_listen serves grpc.health.v1.Health and nothing else (issue 25):
// gRPC's reflection plugin, once enabled for the main listener, was added
// to the health listener too and listed every service to anyone who could
// reach the probe port. The main listener keeps serving reflection.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "client/health_check.h"
#include "gmock/gmock.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/support/sync_stream.h"
#include "gtest/gtest.h"
#include "tests/integration/metrics_scrape.h"
#include "tests/testing/server_process.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;
using testutil::ServerProcess;

grpc::ByteBuffer Bytes(const std::string& s) {
  grpc::Slice slice(s);
  return grpc::ByteBuffer(&slice, 1);
}

std::string Text(const grpc::ByteBuffer& b) {
  std::vector<grpc::Slice> slices;
  std::string out;
  if (!b.Dump(&slices).ok()) return out;
  for (const grpc::Slice& s : slices) {
    out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  return out;
}

// A real reflection client call (the bidi stream grpcurl and grpc_cli
// open): ServerReflectionRequest{list_services: ""}. Returns the status and
// the replies' bytes.
grpc::Status ListServices(const std::string& address, const std::string& path,
                          std::string* replies) {
  auto channel =
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  const grpc::internal::RpcMethod method(
      path.c_str(), grpc::internal::RpcMethod::BIDI_STREAMING);
  std::unique_ptr<grpc::ClientReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer>>
      stream(grpc::internal::ClientReaderWriterFactory<
             grpc::ByteBuffer, grpc::ByteBuffer>::Create(channel.get(), method,
                                                         &ctx));
  // Field 7 (list_services), an empty string.
  stream->Write(Bytes(std::string("\x3a\x00", 2)));
  stream->WritesDone();
  grpc::ByteBuffer reply;
  while (stream->Read(&reply)) *replies += Text(reply);
  return stream->Finish();
}

// A unary call of `path` with an empty request.
grpc::Status Unary(const std::string& address, const std::string& path) {
  grpc::GenericStub stub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::CompletionQueue cq;
  auto call = stub.PrepareUnaryCall(&ctx, path, Bytes(""), &cq);
  call->StartCall();
  grpc::ByteBuffer response;
  grpc::Status status;
  call->Finish(&response, &status, reinterpret_cast<void*>(1));
  void* tag = nullptr;
  bool ok = false;
  EXPECT_TRUE(cq.Next(&tag, &ok));
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
  return status;
}

constexpr char kReflectionV1Alpha[] =
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo";
constexpr char kReflectionV1[] =
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo";

TEST(HealthListen, ServesHealthOnlyWhileTheMainListenerKeepsReflection) {
  const int port = testutil::FreePort();
  ASSERT_GT(port, 0);
  const std::string health = "127.0.0.1:" + std::to_string(port);
  ServerProcess server({"--health_listen=" + health});
  ASSERT_TRUE(server.started());
  absl::StatusOr<int> serving = client::CheckHealth(
      grpc::CreateChannel(health, grpc::InsecureChannelCredentials()), "",
      absl::Seconds(10));
  ASSERT_TRUE(serving.ok()) << serving.status();
  EXPECT_EQ(*serving, client::kHealthServing);

  std::string replies;
  grpc::Status s = ListServices(health, kReflectionV1Alpha, &replies);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNIMPLEMENTED)
      << s.error_message();
  EXPECT_EQ(replies, "");
  replies.clear();
  s = ListServices(health, kReflectionV1, &replies);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(replies, "");
  for (const char* path :
       {"/toolgate.v1.ToolGate/ValidateToolCall",
        "/toolgate.v1.ToolGate/ListSnapshots",
        "/envoy.service.auth.v3.Authorization/Check"}) {
    EXPECT_EQ(Unary(health, path).error_code(),
              grpc::StatusCode::UNIMPLEMENTED)
        << path;
  }

  // The main listener: reflection lists the services, as before.
  replies.clear();
  s = ListServices(server.address(), kReflectionV1Alpha, &replies);
  EXPECT_TRUE(s.ok()) << s.error_message();
  EXPECT_THAT(replies, HasSubstr("toolgate.v1.ToolGate"));
  EXPECT_THAT(replies, HasSubstr("grpc.health.v1.Health"));
  EXPECT_EQ(Unary(server.address(), "/toolgate.v1.ToolGate/ListSnapshots")
                .error_code(),
            grpc::StatusCode::OK);
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace toolgate
