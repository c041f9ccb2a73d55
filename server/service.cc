#include "server/service.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "server/convert.h"
#include "server/tracing.h"

namespace toolgate {
namespace server {

namespace {

absl::string_view Authorization(const grpc::ServerContextBase& context) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) return absl::string_view();
  return absl::string_view(it->second.data(), it->second.size());
}

// The verified client certificate's identities (its subjectAltNames, else
// its common name, as gRPC reports them); empty without mTLS.
std::vector<std::string> PeerIdentities(
    const grpc::ServerContextBase& context) {
  std::vector<std::string> out;
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (auth == nullptr || !auth->IsPeerAuthenticated()) return out;
  for (const grpc::string_ref& id : auth->GetPeerIdentity()) {
    out.emplace_back(id.data(), id.size());
  }
  return out;
}

}  // namespace

absl::Status ToolGateService::CheckAdmin(
    const grpc::ServerContextBase& context) const {
  return auth_->CheckAdmin(Authorization(context));
}

absl::Status ToolGateService::CheckApprover(
    const grpc::ServerContextBase& context) const {
  return auth_->CheckApprover(Authorization(context), PeerIdentities(context));
}

grpc::Status ToolGateService::CreateSnapshot(
    grpc::ServerContextBase* context, const v1::CreateSnapshotRequest* request,
    v1::CreateSnapshotResponse* response) {
  const absl::Status admin = CheckAdmin(*context);
  if (!admin.ok() && snapshot_create_ == SnapshotCreate::kAdmin) {
    return ToGrpc(admin);
  }
  // Only an admin re-points a name another snapshot holds.
  auto snapshot = engine_->CreateSnapshot(
      request->manifest_json(), FromProto(request->format()), request->name(),
      admin.ok() ? NameRule::kRebind : NameRule::kClaim,
      ToCancelToken(context));
  if (!snapshot.ok()) return ToGrpc(snapshot.status());
  response->set_snapshot_id((*snapshot)->id());
  for (const std::string& n : (*snapshot)->tool_names()) {
    response->add_tool_names(n);
  }
  for (const std::string& w : (*snapshot)->warnings())
    response->add_warnings(w);
  response->set_format(ToProto((*snapshot)->source_format()));
  return grpc::Status::OK;
}

grpc::Status ToolGateService::GetSnapshot(grpc::ServerContextBase*,
                                          const v1::GetSnapshotRequest* request,
                                          v1::GetSnapshotResponse* response) {
  auto snapshot = engine_->GetSnapshot(request->snapshot_id(), request->name());
  if (!snapshot.ok()) return ToGrpc(snapshot.status());
  response->set_snapshot_id((*snapshot)->id());
  response->set_manifest_json((*snapshot)->canonical_json());
  for (const std::string& n : (*snapshot)->tool_names()) {
    response->add_tool_names(n);
  }
  response->set_name((*snapshot)->name());
  return grpc::Status::OK;
}

grpc::Status ToolGateService::ListSnapshots(
    grpc::ServerContextBase*, const v1::ListSnapshotsRequest* request,
    v1::ListSnapshotsResponse* response) {
  auto page =
      engine_->ListSnapshots(request->page_size(), request->page_token());
  if (!page.ok()) return ToGrpc(page.status());
  for (const auto& snapshot : page->snapshots) {
    v1::SnapshotInfo* info = response->add_snapshots();
    info->set_snapshot_id(snapshot->id());
    info->set_name(snapshot->name());
    for (const std::string& n : snapshot->tool_names()) info->add_tool_names(n);
  }
  response->set_next_page_token(page->next_page_token);
  return grpc::Status::OK;
}

grpc::Status ToolGateService::DeleteSnapshot(
    grpc::ServerContextBase* context, const v1::DeleteSnapshotRequest* request,
    v1::DeleteSnapshotResponse*) {
  // Always admin: --snapshot_create=any lets agents add, never remove.
  if (absl::Status admin = CheckAdmin(*context); !admin.ok()) {
    return ToGrpc(admin);
  }
  return ToGrpc(engine_->DeleteSnapshot(request->snapshot_id()));
}

grpc::Status ToolGateService::OpenRun(grpc::ServerContextBase*,
                                      const v1::OpenRunRequest* request,
                                      v1::OpenRunResponse* response) {
  std::map<std::string, std::string> context(request->context().begin(),
                                             request->context().end());
  RunLimits limits;
  limits.max_consecutive_rejects = request->max_consecutive_rejects();
  limits.kill_switch_threshold = request->kill_switch_threshold();
  limits.kill_switch_window = request->kill_switch_window();
  limits.text_format = FromProto(request->text_format());
  auto opened = engine_->OpenRun(
      request->snapshot_id(), request->model(), std::move(context), limits,
      {request->protected_texts().begin(), request->protected_texts().end()});
  if (!opened.ok()) return ToGrpc(opened.status());
  response->set_run_id(opened->run->id());
  response->set_run_token(opened->token);
  response->set_snapshot_id(opened->run->snapshot().id());
  return grpc::Status::OK;
}

grpc::Status ToolGateService::CloseRun(grpc::ServerContextBase*,
                                       const v1::CloseRunRequest* request,
                                       v1::CloseRunResponse*) {
  return ToGrpc(engine_->CloseRun(request->run_id(), request->run_token()));
}

grpc::Status ToolGateService::ResetRun(grpc::ServerContextBase*,
                                       const v1::ResetRunRequest* request,
                                       v1::ResetRunResponse*) {
  return ToGrpc(engine_->ResetRun(request->run_id(), request->run_token()));
}

grpc::Status ToolGateService::ValidateToolCall(
    grpc::ServerContextBase* context,
    const v1::ValidateToolCallRequest* request,
    v1::ValidateToolCallResponse* response) {
  if (request->mcp_request_id().size() > kMaxMcpRequestIdBytes) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "mcp_request_id is longer than 256 bytes");
  }
  auto engine_request = FromProto(*request);
  engine_request.cancel = ToCancelToken(context);
  engine_request.trace = CurrentTrace();
  auto result = engine_->ValidateToolCall(engine_request);
  if (!result.ok()) return ToGrpc(result.status());
  ToProto(*std::move(result), response);
  return grpc::Status::OK;
}

std::unique_ptr<ToolCallStream> ToolGateService::NewToolCallStream() const {
  return std::make_unique<ToolCallStream>(engine_->options());
}

grpc::Status ToolGateService::ValidateToolCallStream(
    grpc::ServerContextBase* context, ToolCallStream* stream,
    v1::ValidateToolCallResponse* response) {
  auto engine_request = stream->Finish();
  if (!engine_request.ok()) return ToGrpc(engine_request.status());
  engine_request->cancel = ToCancelToken(context);
  engine_request->trace = CurrentTrace();
  auto result = engine_->ValidateToolCall(*engine_request);
  if (!result.ok()) return ToGrpc(result.status());
  ToProto(*std::move(result), response);
  return grpc::Status::OK;
}

grpc::Status ToolGateService::ExtractVerdict(
    grpc::ServerContextBase* context, const v1::ExtractVerdictRequest* request,
    v1::ExtractVerdictResponse* response) {
  auto engine_request = FromProto(*request);
  engine_request.cancel = ToCancelToken(context);
  auto result = engine_->ExtractVerdict(engine_request);
  if (!result.ok()) return ToGrpc(result.status());
  ToProto(*std::move(result), response);
  return grpc::Status::OK;
}

grpc::Status ToolGateService::ValidateToolOutput(
    grpc::ServerContextBase* context,
    const v1::ValidateToolOutputRequest* request,
    v1::ValidateToolOutputResponse* response) {
  if (request->mcp_request_id().size() > kMaxMcpRequestIdBytes) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "mcp_request_id is longer than 256 bytes");
  }
  auto engine_request = FromProto(*request);
  engine_request.cancel = ToCancelToken(context);
  auto result = engine_->ValidateToolOutput(engine_request);
  if (!result.ok()) return ToGrpc(result.status());
  ToProto(*result, response);
  return grpc::Status::OK;
}

grpc::Status ToolGateService::ListApprovals(
    grpc::ServerContextBase* context, const v1::ListApprovalsRequest* request,
    v1::ListApprovalsResponse* response) {
  if (absl::Status approver = CheckApprover(*context); !approver.ok()) {
    return ToGrpc(approver);
  }
  absl::StatusOr<std::vector<Approval>> listed =
      engine_->ListApprovals(request->run_id(), FromProto(request->state()));
  if (!listed.ok()) return ToGrpc(listed.status());
  for (const Approval& a : *listed) ToProto(a, response->add_approvals());
  return grpc::Status::OK;
}

grpc::Status ToolGateService::DecideApproval(
    grpc::ServerContextBase* context, const v1::DecideApprovalRequest* request,
    v1::DecideApprovalResponse* response) {
  if (absl::Status approver = CheckApprover(*context); !approver.ok()) {
    return ToGrpc(approver);
  }
  auto decided =
      engine_->DecideApproval(request->approval_id(), request->approve(),
                              request->approver(), request->reason());
  if (!decided.ok()) return ToGrpc(decided.status());
  ToProto(*decided, response->mutable_approval());
  return grpc::Status::OK;
}

grpc::Status ToolGateService::AwaitApproval(
    grpc::ServerContextBase* context, const v1::AwaitApprovalRequest* request,
    v1::AwaitApprovalResponse* response) {
  auto state = engine_->AwaitApproval(
      request->run_id(), request->run_token(), request->approval_id(),
      absl::Milliseconds(std::max<int64_t>(0, request->timeout_ms())),
      ToCancelToken(context));
  if (!state.ok()) return ToGrpc(state.status());
  response->set_state(ToProto(*state));
  return grpc::Status::OK;
}

}  // namespace server
}  // namespace toolgate
