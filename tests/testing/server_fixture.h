// A gtest fixture that shares one real toolgate process per test suite and
// gives each test a stub and a few request helpers.
#ifndef TOOLGATE_TESTS_TESTING_SERVER_FIXTURE_H_
#define TOOLGATE_TESTS_TESTING_SERVER_FIXTURE_H_

#include <memory>
#include <string>

#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/testing/server_process.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace testutil {

class ServerFixture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServerProcess();
    ASSERT_TRUE(server_->started());
  }
  static void TearDownTestSuite() {
    EXPECT_EQ(server_->Stop(), 0);  // SIGTERM drains and exits 0.
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    channel_ = grpc::CreateChannel(server_->address(),
                                   grpc::InsecureChannelCredentials());
    stub_ = v1::ToolGate::NewStub(channel_);
  }

  // Creates a snapshot (expecting success) and returns its id.
  std::string CreateSnapshot(
      const std::string& manifest,
      v1::ManifestFormat format = v1::MANIFEST_FORMAT_AUTO) {
    grpc::ClientContext ctx;
    v1::CreateSnapshotRequest req;
    req.set_manifest_json(manifest);
    req.set_format(format);
    v1::CreateSnapshotResponse resp;
    grpc::Status s = stub_->CreateSnapshot(&ctx, req, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp.snapshot_id();
  }

  // The id of a snapshot the server loaded at start, by name.
  std::string SnapshotNamed(const std::string& name) {
    grpc::ClientContext ctx;
    v1::GetSnapshotRequest req;
    req.set_name(name);
    v1::GetSnapshotResponse resp;
    EXPECT_TRUE(stub_->GetSnapshot(&ctx, req, &resp).ok()) << name;
    return resp.snapshot_id();
  }

  v1::OpenRunResponse OpenRun(v1::OpenRunRequest req) {
    grpc::ClientContext ctx;
    v1::OpenRunResponse resp;
    grpc::Status s = stub_->OpenRun(&ctx, req, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp;
  }

  v1::OpenRunResponse OpenRun(const std::string& snapshot, int max_rejects) {
    v1::OpenRunRequest req;
    req.set_snapshot_id(snapshot);
    req.set_model("test-model");
    req.set_max_consecutive_rejects(max_rejects);
    return OpenRun(req);
  }

  void ResetRun(const v1::OpenRunResponse& run) {
    grpc::ClientContext ctx;
    v1::ResetRunRequest req;
    req.set_run_id(run.run_id());
    req.set_run_token(run.run_token());
    v1::ResetRunResponse resp;
    EXPECT_TRUE(stub_->ResetRun(&ctx, req, &resp).ok());
  }

  grpc::Status Validate(const v1::ValidateToolCallRequest& req,
                        v1::ValidateToolCallResponse* resp) {
    grpc::ClientContext ctx;
    return stub_->ValidateToolCall(&ctx, req, resp);
  }

  static ServerProcess* server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::ToolGate::Stub> stub_;
};

inline ServerProcess* ServerFixture::server_ = nullptr;

}  // namespace testutil
}  // namespace toolgate

#endif  // TOOLGATE_TESTS_TESTING_SERVER_FIXTURE_H_
