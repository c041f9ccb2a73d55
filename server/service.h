// The toolgate.v1.ToolGate gRPC service: a thin adapter over core Engine.
//
// Each RPC converts its request, calls the Engine, and converts the result
// back; no decision is made here. Thread-safety: as the Engine (all RPCs
// may run concurrently).
#ifndef TOOLGATE_SERVER_SERVICE_H_
#define TOOLGATE_SERVER_SERVICE_H_

#include "core/engine/engine.h"
#include "server/auth.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace server {

// Which role CreateSnapshot needs (--snapshot_create).
enum class SnapshotCreate { kAdmin, kAnyone };

class ToolGateService final : public v1::ToolGate::Service {
 public:
  // Neither pointer is owned; both must outlive the service.
  ToolGateService(Engine* engine, const AdminAuth* auth,
                  SnapshotCreate snapshot_create)
      : engine_(engine), auth_(auth), snapshot_create_(snapshot_create) {}

  grpc::Status CreateSnapshot(grpc::ServerContext* context,
                              const v1::CreateSnapshotRequest* request,
                              v1::CreateSnapshotResponse* response) override;
  grpc::Status GetSnapshot(grpc::ServerContext*,
                           const v1::GetSnapshotRequest* request,
                           v1::GetSnapshotResponse* response) override;
  grpc::Status ListSnapshots(grpc::ServerContext*,
                             const v1::ListSnapshotsRequest* request,
                             v1::ListSnapshotsResponse* response) override;
  grpc::Status OpenRun(grpc::ServerContext*, const v1::OpenRunRequest* request,
                       v1::OpenRunResponse* response) override;
  grpc::Status CloseRun(grpc::ServerContext*,
                        const v1::CloseRunRequest* request,
                        v1::CloseRunResponse* response) override;
  grpc::Status ResetRun(grpc::ServerContext*,
                        const v1::ResetRunRequest* request,
                        v1::ResetRunResponse* response) override;
  grpc::Status ValidateToolCall(
      grpc::ServerContext*, const v1::ValidateToolCallRequest* request,
      v1::ValidateToolCallResponse* response) override;
  grpc::Status ExtractVerdict(grpc::ServerContext*,
                              const v1::ExtractVerdictRequest* request,
                              v1::ExtractVerdictResponse* response) override;
  grpc::Status ValidateToolOutput(
      grpc::ServerContext*, const v1::ValidateToolOutputRequest* request,
      v1::ValidateToolOutputResponse* response) override;

 private:
  absl::Status CheckAdmin(const grpc::ServerContext& context) const;

  Engine* const engine_;
  const AdminAuth* const auth_;
  const SnapshotCreate snapshot_create_;
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_SERVICE_H_
