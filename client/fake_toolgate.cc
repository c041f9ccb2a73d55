#include "client/fake_toolgate.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace toolgate {
namespace client {
namespace testing {

void FakeToolGate::Reply(const std::string& method,
                         const google::protobuf::Message& msg) {
  absl::MutexLock lock(&mu_);
  Script& script = scripts_[method];
  script.kind = Script::Kind::kReply;
  script.response_bytes = msg.SerializeAsString();
}

void FakeToolGate::Fail(const std::string& method, grpc::Status status) {
  absl::MutexLock lock(&mu_);
  Script& script = scripts_[method];
  script.kind = Script::Kind::kFail;
  script.status = std::move(status);
}

void FakeToolGate::Hang(const std::string& method) {
  absl::MutexLock lock(&mu_);
  scripts_[method].kind = Script::Kind::kHang;
}

bool FakeToolGate::LastRequest(const std::string& method,
                               google::protobuf::Message* request) const {
  absl::MutexLock lock(&mu_);
  auto it = last_requests_.find(method);
  if (it == last_requests_.end()) return false;
  return request->ParseFromString(it->second);
}

int FakeToolGate::CallCount(const std::string& method) const {
  absl::MutexLock lock(&mu_);
  auto it = call_counts_.find(method);
  return it == call_counts_.end() ? 0 : it->second;
}

grpc::Status FakeToolGate::Handle(const std::string& method,
                                  grpc::ServerContext* context,
                                  const google::protobuf::Message& request,
                                  google::protobuf::Message* response) {
  Script script;
  bool scripted = false;
  {
    absl::MutexLock lock(&mu_);
    last_requests_[method] = request.SerializeAsString();
    ++call_counts_[method];
    auto it = scripts_.find(method);
    if (it != scripts_.end()) {
      script = it->second;
      scripted = true;
    }
  }
  if (!scripted) {
    return grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                        absl::StrCat("fake: ", method, " not scripted"));
  }
  switch (script.kind) {
    case Script::Kind::kReply:
      response->ParseFromString(script.response_bytes);
      return grpc::Status::OK;
    case Script::Kind::kFail:
      return script.status;
    case Script::Kind::kHang: {
      // Bounded so a broken client cannot wedge the test binary forever.
      const absl::Time give_up = absl::Now() + absl::Seconds(60);
      while (!context->IsCancelled() && absl::Now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      return grpc::Status(grpc::StatusCode::CANCELLED, "fake: hung");
    }
  }
  return grpc::Status(grpc::StatusCode::INTERNAL, "fake: bad script");
}

grpc::Status FakeToolGate::CreateSnapshot(
    grpc::ServerContext* context, const v1::CreateSnapshotRequest* request,
    v1::CreateSnapshotResponse* response) {
  return Handle("CreateSnapshot", context, *request, response);
}

grpc::Status FakeToolGate::GetSnapshot(grpc::ServerContext* context,
                                       const v1::GetSnapshotRequest* request,
                                       v1::GetSnapshotResponse* response) {
  return Handle("GetSnapshot", context, *request, response);
}

grpc::Status FakeToolGate::DeleteSnapshot(
    grpc::ServerContext* context, const v1::DeleteSnapshotRequest* request,
    v1::DeleteSnapshotResponse* response) {
  return Handle("DeleteSnapshot", context, *request, response);
}

grpc::Status FakeToolGate::ListApprovals(
    grpc::ServerContext* context, const v1::ListApprovalsRequest* request,
    v1::ListApprovalsResponse* response) {
  return Handle("ListApprovals", context, *request, response);
}

grpc::Status FakeToolGate::DecideApproval(
    grpc::ServerContext* context, const v1::DecideApprovalRequest* request,
    v1::DecideApprovalResponse* response) {
  return Handle("DecideApproval", context, *request, response);
}

grpc::Status FakeToolGate::ListSnapshots(
    grpc::ServerContext* context, const v1::ListSnapshotsRequest* request,
    v1::ListSnapshotsResponse* response) {
  return Handle("ListSnapshots", context, *request, response);
}

grpc::Status FakeToolGate::OpenRun(grpc::ServerContext* context,
                                   const v1::OpenRunRequest* request,
                                   v1::OpenRunResponse* response) {
  return Handle("OpenRun", context, *request, response);
}

grpc::Status FakeToolGate::CloseRun(grpc::ServerContext* context,
                                    const v1::CloseRunRequest* request,
                                    v1::CloseRunResponse* response) {
  return Handle("CloseRun", context, *request, response);
}

grpc::Status FakeToolGate::ResetRun(grpc::ServerContext* context,
                                    const v1::ResetRunRequest* request,
                                    v1::ResetRunResponse* response) {
  return Handle("ResetRun", context, *request, response);
}

grpc::Status FakeToolGate::ValidateToolCall(
    grpc::ServerContext* context, const v1::ValidateToolCallRequest* request,
    v1::ValidateToolCallResponse* response) {
  return Handle("ValidateToolCall", context, *request, response);
}

grpc::Status FakeToolGate::ExtractVerdict(
    grpc::ServerContext* context, const v1::ExtractVerdictRequest* request,
    v1::ExtractVerdictResponse* response) {
  return Handle("ExtractVerdict", context, *request, response);
}

grpc::Status FakeToolGate::ValidateToolOutput(
    grpc::ServerContext* context, const v1::ValidateToolOutputRequest* request,
    v1::ValidateToolOutputResponse* response) {
  return Handle("ValidateToolOutput", context, *request, response);
}

FakeServer::FakeServer() {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(&service_);
  server_ = builder.BuildAndStart();
  if (server_ == nullptr) {
    std::fprintf(stderr, "fake toolgate server failed to start\n");
    std::abort();
  }
  address_ = absl::StrCat("127.0.0.1:", port);
}

FakeServer::~FakeServer() {
  // The deadline cancels hung handlers instead of waiting for them.
  server_->Shutdown(std::chrono::system_clock::now() +
                    std::chrono::milliseconds(100));
  server_->Wait();
}

std::shared_ptr<grpc::Channel> FakeServer::NewChannel() const {
  return grpc::CreateChannel(address_, grpc::InsecureChannelCredentials());
}

std::string ClosedAddress() {
  FakeServer server;
  return server.address();
}

}  // namespace testing
}  // namespace client
}  // namespace toolgate
