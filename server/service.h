// The toolgate.v1.ToolGate gRPC service: a thin adapter over core Engine.
//
// Each RPC converts its request, calls the Engine, and converts the result
// back; no decision is made here. RawToolGateService registers these with
// gRPC (see raw_service.h for why they are not the generated overrides).
// Thread-safety: as the Engine (all RPCs may run concurrently).
#ifndef TOOLGATE_SERVER_SERVICE_H_
#define TOOLGATE_SERVER_SERVICE_H_

#include <memory>

#include "core/engine/engine.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/status.h"
#include "server/auth.h"
#include "server/tool_call_stream.h"
#include "toolgate/v1/toolgate.pb.h"

namespace toolgate {
namespace server {

// Which role CreateSnapshot needs (--snapshot_create).
enum class SnapshotCreate { kAdmin, kAnyone };

class ToolGateService final {
 public:
  // Neither pointer is owned; both must outlive the service.
  ToolGateService(Engine* engine, const AdminAuth* auth,
                  SnapshotCreate snapshot_create)
      : engine_(engine), auth_(auth), snapshot_create_(snapshot_create) {}

  grpc::Status CreateSnapshot(grpc::ServerContextBase* context,
                              const v1::CreateSnapshotRequest* request,
                              v1::CreateSnapshotResponse* response);
  grpc::Status GetSnapshot(grpc::ServerContextBase*,
                           const v1::GetSnapshotRequest* request,
                           v1::GetSnapshotResponse* response);
  grpc::Status ListSnapshots(grpc::ServerContextBase*,
                             const v1::ListSnapshotsRequest* request,
                             v1::ListSnapshotsResponse* response);
  grpc::Status DeleteSnapshot(grpc::ServerContextBase* context,
                              const v1::DeleteSnapshotRequest* request,
                              v1::DeleteSnapshotResponse* response);
  grpc::Status OpenRun(grpc::ServerContextBase*,
                       const v1::OpenRunRequest* request,
                       v1::OpenRunResponse* response);
  grpc::Status CloseRun(grpc::ServerContextBase*,
                        const v1::CloseRunRequest* request,
                        v1::CloseRunResponse* response);
  grpc::Status ResetRun(grpc::ServerContextBase*,
                        const v1::ResetRunRequest* request,
                        v1::ResetRunResponse* response);
  grpc::Status ValidateToolCall(grpc::ServerContextBase*,
                                const v1::ValidateToolCallRequest* request,
                                v1::ValidateToolCallResponse* response);
  // ValidateToolCallStream: the raw service feeds each message to a
  // ToolCallStream from NewToolCallStream() and, at half-close, decides.
  std::unique_ptr<ToolCallStream> NewToolCallStream() const;
  grpc::Status ValidateToolCallStream(grpc::ServerContextBase* context,
                                      ToolCallStream* stream,
                                      v1::ValidateToolCallResponse* response);
  grpc::Status ExtractVerdict(grpc::ServerContextBase*,
                              const v1::ExtractVerdictRequest* request,
                              v1::ExtractVerdictResponse* response);
  grpc::Status ValidateToolOutput(grpc::ServerContextBase*,
                                  const v1::ValidateToolOutputRequest* request,
                                  v1::ValidateToolOutputResponse* response);
  grpc::Status ListApprovals(grpc::ServerContextBase* context,
                             const v1::ListApprovalsRequest* request,
                             v1::ListApprovalsResponse* response);
  grpc::Status DecideApproval(grpc::ServerContextBase* context,
                              const v1::DecideApprovalRequest* request,
                              v1::DecideApprovalResponse* response);
  // Blocks until the approval is decided, expires or the wait ends: the
  // raw service runs it on a thread of its own, not gRPC's.
  grpc::Status AwaitApproval(grpc::ServerContextBase* context,
                             const v1::AwaitApprovalRequest* request,
                             v1::AwaitApprovalResponse* response);

 private:
  absl::Status CheckAdmin(const grpc::ServerContextBase& context) const;
  // ListApprovals and DecideApproval: the admin token or a listed client
  // certificate, on every listener (server/auth.h).
  absl::Status CheckApprover(const grpc::ServerContextBase& context) const;

  Engine* const engine_;
  const AdminAuth* const auth_;
  const SnapshotCreate snapshot_create_;
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_SERVICE_H_
