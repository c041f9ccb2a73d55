// Test double: a real in-process gRPC server running a scripted ToolGate
// service, for the client and CLI tests.
//
// Each RPC (named as in the proto, e.g. "ValidateToolCall") is scripted to
// reply with a canned message, fail with a status, or hang until the client
// gives up; an unscripted RPC answers UNIMPLEMENTED. The last request each
// RPC received is kept so tests can check what a client actually sent.
//
// Thread-safe: scripting and inspection may race with in-flight RPCs.
#ifndef TOOLGATE_CLIENT_FAKE_TOOLGATE_H_
#define TOOLGATE_CLIENT_FAKE_TOOLGATE_H_

#include <map>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "google/protobuf/message.h"
#include "grpcpp/grpcpp.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace client {
namespace testing {

class FakeToolGate final : public v1::ToolGate::Service {
 public:
  void Reply(const std::string& method, const google::protobuf::Message& msg);
  void Fail(const std::string& method, grpc::Status status);
  // Blocks the handler until the call is cancelled (deadline or shutdown).
  void Hang(const std::string& method);

  // Parses the last request `method` received into `request`; false if the
  // method was never called.
  bool LastRequest(const std::string& method,
                   google::protobuf::Message* request) const;
  int CallCount(const std::string& method) const;

  grpc::Status CreateSnapshot(grpc::ServerContext* context,
                              const v1::CreateSnapshotRequest* request,
                              v1::CreateSnapshotResponse* response) override;
  grpc::Status GetSnapshot(grpc::ServerContext* context,
                           const v1::GetSnapshotRequest* request,
                           v1::GetSnapshotResponse* response) override;
  grpc::Status ListApprovals(grpc::ServerContext* context,
                             const v1::ListApprovalsRequest* request,
                             v1::ListApprovalsResponse* response) override;
  grpc::Status DecideApproval(grpc::ServerContext* context,
                              const v1::DecideApprovalRequest* request,
                              v1::DecideApprovalResponse* response) override;
  grpc::Status DeleteSnapshot(grpc::ServerContext* context,
                              const v1::DeleteSnapshotRequest* request,
                              v1::DeleteSnapshotResponse* response) override;
  grpc::Status ListSnapshots(grpc::ServerContext* context,
                             const v1::ListSnapshotsRequest* request,
                             v1::ListSnapshotsResponse* response) override;
  grpc::Status OpenRun(grpc::ServerContext* context,
                       const v1::OpenRunRequest* request,
                       v1::OpenRunResponse* response) override;
  grpc::Status CloseRun(grpc::ServerContext* context,
                        const v1::CloseRunRequest* request,
                        v1::CloseRunResponse* response) override;
  grpc::Status ResetRun(grpc::ServerContext* context,
                        const v1::ResetRunRequest* request,
                        v1::ResetRunResponse* response) override;
  grpc::Status ValidateToolCall(
      grpc::ServerContext* context, const v1::ValidateToolCallRequest* request,
      v1::ValidateToolCallResponse* response) override;
  grpc::Status ExtractVerdict(grpc::ServerContext* context,
                              const v1::ExtractVerdictRequest* request,
                              v1::ExtractVerdictResponse* response) override;
  grpc::Status ValidateToolOutput(
      grpc::ServerContext* context,
      const v1::ValidateToolOutputRequest* request,
      v1::ValidateToolOutputResponse* response) override;

 private:
  struct Script {
    enum class Kind { kReply, kFail, kHang } kind = Kind::kReply;
    std::string response_bytes;
    grpc::Status status;
  };

  grpc::Status Handle(const std::string& method, grpc::ServerContext* context,
                      const google::protobuf::Message& request,
                      google::protobuf::Message* response);

  mutable absl::Mutex mu_;
  std::map<std::string, Script> scripts_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> last_requests_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> call_counts_ ABSL_GUARDED_BY(mu_);
};

// Starts FakeToolGate (plus gRPC's default health service) on a free
// loopback port; shuts down on destruction.
class FakeServer {
 public:
  FakeServer();
  ~FakeServer();
  FakeServer(const FakeServer&) = delete;
  FakeServer& operator=(const FakeServer&) = delete;

  FakeToolGate& service() { return service_; }
  grpc::Server& server() { return *server_; }
  // "127.0.0.1:<port>".
  const std::string& address() const { return address_; }
  std::shared_ptr<grpc::Channel> NewChannel() const;

 private:
  FakeToolGate service_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
};

// An address nothing listens on: a port a server just gave back.
std::string ClosedAddress();

}  // namespace testing
}  // namespace client
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_FAKE_TOOLGATE_H_
