#include "client/toolgate_client.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace toolgate {
namespace client {
namespace {

// Each returns the first reason a successful response is still not
// positive, or "" when it is.

std::string GateDenyReason(const v1::ValidateToolCallResponse& response) {
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
  if (response.calls_size() == 0) return "DECISION_ALLOW but no calls";
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

std::string VerdictDenyReason(const v1::ExtractVerdictResponse& response) {
  if (response.outcome() != v1::OUTCOME_PASS) {
    std::string reason =
        absl::StrCat("outcome ", v1::Outcome_Name(response.outcome()));
    if (!response.stop_reason().empty()) {
      absl::StrAppend(&reason, " (", response.stop_reason(), ")");
    }
    return reason;
  }
  // A PASS must come with the block it was read from, and that block must
  // say "pass": the two signals have to agree.
  if (response.result_json().empty()) return "OUTCOME_PASS but no result_json";
  const nlohmann::json block = nlohmann::json::parse(
      response.result_json(), nullptr, /*allow_exceptions=*/false);
  if (!block.is_object() || !block.contains("verdict") ||
      block["verdict"] != "pass") {
    return "OUTCOME_PASS but result_json's verdict is not \"pass\"";
  }
  return "";
}

std::string OutputDenyReason(const v1::ValidateToolOutputResponse& response) {
  if (response.verdict() == v1::OUTPUT_VERDICT_VALID) return "";
  std::string reason =
      absl::StrCat("verdict ", v1::OutputVerdict_Name(response.verdict()));
  if (!response.stop_reason().empty()) {
    absl::StrAppend(&reason, " (", response.stop_reason(), ")");
  }
  return reason;
}

}  // namespace

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  int code = static_cast<int>(status.error_code());
  // gRPC and Abseil share the canonical numbering 0..16.
  const int last = static_cast<int>(absl::StatusCode::kUnauthenticated);
  if (code <= 0 || code > last) {
    code = static_cast<int>(absl::StatusCode::kUnknown);
  }
  return absl::Status(static_cast<absl::StatusCode>(code),
                      status.error_message());
}

GateResult::GateResult(absl::Status status,
                       v1::ValidateToolCallResponse response)
    : CheckResult(std::move(status), std::move(response), &GateDenyReason) {}

VerdictResult::VerdictResult(absl::Status status,
                             v1::ExtractVerdictResponse response)
    : CheckResult(std::move(status), std::move(response), &VerdictDenyReason) {}

ToolOutputResult::ToolOutputResult(absl::Status status,
                                   v1::ValidateToolOutputResponse response)
    : CheckResult(std::move(status), std::move(response), &OutputDenyReason) {}

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
    const Request& request, bool admin, absl::Duration wait) const {
  grpc::ClientContext context;
  context.set_deadline(
      absl::ToChronoTime(absl::Now() + options_.deadline + wait));
  if (admin && !options_.admin_token.empty()) {
    context.AddMetadata("authorization", "Bearer " + options_.admin_token);
  }
  Response response;
  grpc::Status status = (stub_.get()->*method)(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<v1::CreateSnapshotResponse> ToolGateClient::CreateSnapshot(
    const v1::CreateSnapshotRequest& request) const {
  return Call(&v1::ToolGate::Stub::CreateSnapshot, request, /*admin=*/true);
}

absl::StatusOr<v1::GetSnapshotResponse> ToolGateClient::GetSnapshot(
    const v1::GetSnapshotRequest& request) const {
  return Call(&v1::ToolGate::Stub::GetSnapshot, request);
}

absl::StatusOr<v1::DeleteSnapshotResponse> ToolGateClient::DeleteSnapshot(
    const v1::DeleteSnapshotRequest& request) const {
  return Call(&v1::ToolGate::Stub::DeleteSnapshot, request, /*admin=*/true);
}

absl::StatusOr<v1::ListSnapshotsResponse> ToolGateClient::ListSnapshots(
    const v1::ListSnapshotsRequest& request) const {
  return Call(&v1::ToolGate::Stub::ListSnapshots, request);
}

absl::StatusOr<v1::ListSnapshotsResponse> ToolGateClient::ListAllSnapshots(
    const v1::ListSnapshotsRequest& request) const {
  v1::ListSnapshotsResponse all;
  v1::ListSnapshotsRequest page_request = request;
  absl::flat_hash_set<std::string> tokens_seen;
  while (true) {
    absl::StatusOr<v1::ListSnapshotsResponse> page =
        ListSnapshots(page_request);
    if (!page.ok()) return page.status();
    for (v1::SnapshotInfo& s : *page->mutable_snapshots()) {
      *all.add_snapshots() = std::move(s);
    }
    if (page->next_page_token().empty()) return all;
    if (!tokens_seen.insert(page->next_page_token()).second) {
      return absl::InternalError(
          "ListSnapshots returned a next_page_token it had returned before");
    }
    page_request.set_page_token(page->next_page_token());
  }
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

absl::StatusOr<v1::ListApprovalsResponse> ToolGateClient::ListApprovals(
    const v1::ListApprovalsRequest& request) const {
  return Call(&v1::ToolGate::Stub::ListApprovals, request, /*admin=*/true);
}

absl::StatusOr<v1::DecideApprovalResponse> ToolGateClient::DecideApproval(
    const v1::DecideApprovalRequest& request) const {
  return Call(&v1::ToolGate::Stub::DecideApproval, request, /*admin=*/true);
}

absl::StatusOr<v1::AwaitApprovalResponse> ToolGateClient::AwaitApproval(
    const v1::AwaitApprovalRequest& request) const {
  return Call(&v1::ToolGate::Stub::AwaitApproval, request, /*admin=*/false,
              absl::Milliseconds(std::max<int64_t>(0, request.timeout_ms())));
}

absl::StatusOr<v1::ValidateToolCallResponse> ToolGateClient::ValidateToolCall(
    const v1::ValidateToolCallRequest& request) const {
  return Call(&v1::ToolGate::Stub::ValidateToolCall, request);
}

absl::StatusOr<v1::ExtractVerdictResponse> ToolGateClient::ExtractVerdict(
    const v1::ExtractVerdictRequest& request) const {
  return Call(&v1::ToolGate::Stub::ExtractVerdict, request);
}

absl::StatusOr<v1::ValidateToolOutputResponse>
ToolGateClient::ValidateToolOutput(
    const v1::ValidateToolOutputRequest& request) const {
  return Call(&v1::ToolGate::Stub::ValidateToolOutput, request);
}

GateResult ToolGateClient::CheckToolCall(
    const v1::ValidateToolCallRequest& request) const {
  absl::StatusOr<v1::ValidateToolCallResponse> response =
      ValidateToolCall(request);
  if (!response.ok()) return GateResult(response.status(), {});
  return GateResult(absl::OkStatus(), *std::move(response));
}

VerdictResult ToolGateClient::CheckVerdict(
    const v1::ExtractVerdictRequest& request) const {
  absl::StatusOr<v1::ExtractVerdictResponse> response = ExtractVerdict(request);
  if (!response.ok()) return VerdictResult(response.status(), {});
  return VerdictResult(absl::OkStatus(), *std::move(response));
}

ToolOutputResult ToolGateClient::CheckToolOutput(
    const v1::ValidateToolOutputRequest& request) const {
  absl::StatusOr<v1::ValidateToolOutputResponse> response =
      ValidateToolOutput(request);
  if (!response.ok()) return ToolOutputResult(response.status(), {});
  return ToolOutputResult(absl::OkStatus(), *std::move(response));
}

}  // namespace client
}  // namespace toolgate
