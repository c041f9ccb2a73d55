#include "client/toolgate_client.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"

namespace toolgate {
namespace client {
namespace {

// The first reason a successful response must still be denied, or "".
std::string DenyReason(const v1::ValidateToolCallResponse& response) {
  if (response.decision() != v1::DECISION_ALLOW) {
    std::string reason =
        absl::StrCat("decision ", v1::Decision_Name(response.decision()));
    if (!response.stop_reason().empty()) {
      absl::StrAppend(&reason, " (", response.stop_reason(), ")");
    }
    return reason;
  }
  // An ALLOW naming nothing to run, or nothing to run it with, is a broken
  // answer, not a permission.
  for (int i = 0; i < response.calls_size(); ++i) {
    const v1::ToolCall& call = response.calls(i);
    if (call.name().empty()) {
      return absl::StrCat("DECISION_ALLOW but call ", i, " has no name");
    }
    if (call.arguments_json().empty()) {
      return absl::StrCat("DECISION_ALLOW but call ", i,
                          " has no arguments_json");
    }
  }
  return "";
}

}  // namespace

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  int code = static_cast<int>(status.error_code());
  // gRPC and Abseil share the canonical numbering 0..16.
  if (code <= 0 || code > static_cast<int>(absl::StatusCode::kUnauthenticated)) {
    code = static_cast<int>(absl::StatusCode::kUnknown);
  }
  return absl::Status(static_cast<absl::StatusCode>(code),
                      status.error_message());
}

GateResult::GateResult(absl::Status status,
                       v1::ValidateToolCallResponse response)
    : status_(std::move(status)), response_(std::move(response)) {
  if (!status_.ok()) {
    // Whatever arrived alongside an error is not trusted.
    response_.Clear();
    reason_ = absl::StrCat("rpc failed: ", status_.ToString());
    return;
  }
  reason_ = DenyReason(response_);
  allowed_ = reason_.empty();
}

ToolGateClient::ToolGateClient(std::shared_ptr<grpc::ChannelInterface> channel,
                               ToolGateClientOptions options)
    : stub_(v1::ToolGate::NewStub(std::move(channel))), options_(options) {}

std::unique_ptr<ToolGateClient> ToolGateClient::ForTarget(
    const std::string& target, ToolGateClientOptions options) {
  return std::make_unique<ToolGateClient>(
      grpc::CreateChannel(target, grpc::InsecureChannelCredentials()), options);
}

template <typename Request, typename Response>
absl::StatusOr<Response> ToolGateClient::Call(
    grpc::Status (v1::ToolGate::Stub::*method)(grpc::ClientContext*,
                                               const Request&, Response*),
    const Request& request) const {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + options_.deadline));
  Response response;
  grpc::Status status = (stub_.get()->*method)(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<v1::CreateSnapshotResponse> ToolGateClient::CreateSnapshot(
    const v1::CreateSnapshotRequest& request) const {
  return Call(&v1::ToolGate::Stub::CreateSnapshot, request);
}

absl::StatusOr<v1::GetSnapshotResponse> ToolGateClient::GetSnapshot(
    const v1::GetSnapshotRequest& request) const {
  return Call(&v1::ToolGate::Stub::GetSnapshot, request);
}

absl::StatusOr<v1::ListSnapshotsResponse> ToolGateClient::ListSnapshots(
    const v1::ListSnapshotsRequest& request) const {
  return Call(&v1::ToolGate::Stub::ListSnapshots, request);
}

absl::StatusOr<v1::OpenRunResponse> ToolGateClient::OpenRun(
    const v1::OpenRunRequest& request) const {
  return Call(&v1::ToolGate::Stub::OpenRun, request);
}

absl::StatusOr<v1::CloseRunResponse> ToolGateClient::CloseRun(
    const v1::CloseRunRequest& request) const {
  return Call(&v1::ToolGate::Stub::CloseRun, request);
}

absl::StatusOr<v1::ResetRunResponse> ToolGateClient::ResetRun(
    const v1::ResetRunRequest& request) const {
  return Call(&v1::ToolGate::Stub::ResetRun, request);
}

absl::StatusOr<v1::ValidateToolCallResponse> ToolGateClient::ValidateToolCall(
    const v1::ValidateToolCallRequest& request) const {
  return Call(&v1::ToolGate::Stub::ValidateToolCall, request);
}

GateResult ToolGateClient::CheckToolCall(
    const v1::ValidateToolCallRequest& request) const {
  absl::StatusOr<v1::ValidateToolCallResponse> response =
      ValidateToolCall(request);
  if (!response.ok()) return GateResult(response.status(), {});
  return GateResult(absl::OkStatus(), *std::move(response));
}

}  // namespace client
}  // namespace toolgate
