// C++ client for the toolgate.v1.ToolGate sidecar.
//
// Two layers:
//   * thin RPC methods (CreateSnapshot, ValidateToolCall, ...) that return
//     absl::StatusOr<Response>, with the gRPC status converted to an
//     absl::Status carrying the same canonical code;
//   * helpers (CheckToolCall, CheckVerdict, CheckToolOutput) that collapse
//     everything into one fail-closed boolean. An RPC error, a deadline,
//     a missing field or an *_UNSPECIFIED enum is a deny: absence of a
//     signal is never a positive signal. The reason is kept for logs.
//
// Agents should gate on the helpers, not on the thin methods.
#ifndef TOOLGATE_CLIENT_TOOLGATE_CLIENT_H_
#define TOOLGATE_CLIENT_TOOLGATE_CLIENT_H_

#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace client {

// Same canonical code and message; codes gRPC does not define map to UNKNOWN.
absl::Status FromGrpcStatus(const grpc::Status& status);

struct ToolGateClientOptions {
  // Per-RPC deadline. A call that has not completed by then is a deny.
  absl::Duration deadline = absl::Seconds(2);
  // Sent as "authorization: Bearer <token>" on admin RPCs only (a server
  // started with --admin_token_file needs it); empty: not sent.
  std::string admin_token;
};

// What the fail-closed helpers return: the RPC status, the response (cleared
// when the RPC failed, so nothing from a failed call is trusted) and, when
// the answer is anything but the one positive value, the reason.
template <typename Response>
class CheckResult {
 public:
  // OK iff the RPC itself succeeded (a REJECT is still an OK status).
  const absl::Status& status() const { return status_; }
  const Response& response() const { return response_; }
  // Why the answer is not positive; empty when it is.
  const std::string& reason() const { return reason_; }

 protected:
  // `deny_reason` returns "" only for a successful, positive response.
  CheckResult(absl::Status status, Response response,
              std::string (*deny_reason)(const Response&))
      : status_(std::move(status)), response_(std::move(response)) {
    if (!status_.ok()) {
      response_.Clear();
      reason_ = "rpc failed: " + status_.ToString();
      return;
    }
    reason_ = deny_reason(response_);
    positive_ = reason_.empty();
  }

  bool positive_ = false;

 private:
  absl::Status status_;
  Response response_;
  std::string reason_;
};

// allowed() only when the RPC succeeded, the decision is DECISION_ALLOW and
// every returned call carries a name and canonical arguments to execute.
class GateResult : public CheckResult<v1::ValidateToolCallResponse> {
 public:
  GateResult(absl::Status status, v1::ValidateToolCallResponse response);
  bool allowed() const { return positive_; }
  v1::Decision decision() const { return response().decision(); }
};

// passed() only when the RPC succeeded, the outcome is OUTCOME_PASS and the
// validated result block is present.
class VerdictResult : public CheckResult<v1::ExtractVerdictResponse> {
 public:
  VerdictResult(absl::Status status, v1::ExtractVerdictResponse response);
  bool passed() const { return positive_; }
  v1::Outcome outcome() const { return response().outcome(); }
};

// valid() only when the RPC succeeded and the verdict is
// OUTPUT_VERDICT_VALID. When not valid, response().safe_mode() says whether
// the agent may continue read-only ("skip_writes") or must stop ("").
class ToolOutputResult : public CheckResult<v1::ValidateToolOutputResponse> {
 public:
  ToolOutputResult(absl::Status status,
                   v1::ValidateToolOutputResponse response);
  bool valid() const { return positive_; }
  v1::OutputVerdict verdict() const { return response().verdict(); }
};

// Thread-safe: every method is const and the underlying gRPC stub and
// channel are safe to share between threads. One client per process is
// enough.
class ToolGateClient {
 public:
  explicit ToolGateClient(std::shared_ptr<grpc::ChannelInterface> channel,
                          ToolGateClientOptions options = {});

  // Insecure channel to "host:port" or "unix:/path". Connection happens
  // lazily; a server that is down shows up as UNAVAILABLE on the first RPC.
  static std::unique_ptr<ToolGateClient> ForTarget(
      const std::string& target, ToolGateClientOptions options = {});

  absl::StatusOr<v1::CreateSnapshotResponse> CreateSnapshot(
      const v1::CreateSnapshotRequest& request) const;
  absl::StatusOr<v1::GetSnapshotResponse> GetSnapshot(
      const v1::GetSnapshotRequest& request) const;
  // Admin (sends the admin token when configured).
  absl::StatusOr<v1::DeleteSnapshotResponse> DeleteSnapshot(
      const v1::DeleteSnapshotRequest& request) const;
  // One page; see ListAllSnapshots for every page.
  absl::StatusOr<v1::ListSnapshotsResponse> ListSnapshots(
      const v1::ListSnapshotsRequest& request) const;
  // Every snapshot from request.page_token on (empty: from the first),
  // following next_page_token page by page (each page one RPC with its own
  // deadline); the response holds them all and no next_page_token. A
  // server that hands back a token it already gave is an INTERNAL error,
  // not an endless loop.
  absl::StatusOr<v1::ListSnapshotsResponse> ListAllSnapshots(
      const v1::ListSnapshotsRequest& request) const;
  absl::StatusOr<v1::OpenRunResponse> OpenRun(
      const v1::OpenRunRequest& request) const;
  absl::StatusOr<v1::CloseRunResponse> CloseRun(
      const v1::CloseRunRequest& request) const;
  absl::StatusOr<v1::ResetRunResponse> ResetRun(
      const v1::ResetRunRequest& request) const;
  absl::StatusOr<v1::ValidateToolCallResponse> ValidateToolCall(
      const v1::ValidateToolCallRequest& request) const;
  absl::StatusOr<v1::ExtractVerdictResponse> ExtractVerdict(
      const v1::ExtractVerdictRequest& request) const;
  absl::StatusOr<v1::ValidateToolOutputResponse> ValidateToolOutput(
      const v1::ValidateToolOutputRequest& request) const;

  // Fail-closed helpers: never throw, never block past the deadline.
  // Admin (sends the admin token when configured).
  absl::StatusOr<v1::ListApprovalsResponse> ListApprovals(
      const v1::ListApprovalsRequest& request) const;
  absl::StatusOr<v1::DecideApprovalResponse> DecideApproval(
      const v1::DecideApprovalRequest& request) const;
  // Waits up to request.timeout_ms (on top of the client's deadline).
  absl::StatusOr<v1::AwaitApprovalResponse> AwaitApproval(
      const v1::AwaitApprovalRequest& request) const;

  GateResult CheckToolCall(const v1::ValidateToolCallRequest& request) const;
  VerdictResult CheckVerdict(const v1::ExtractVerdictRequest& request) const;
  ToolOutputResult CheckToolOutput(
      const v1::ValidateToolOutputRequest& request) const;

 private:
  template <typename Request, typename Response>
  absl::StatusOr<Response> Call(
      grpc::Status (v1::ToolGate::Stub::*method)(grpc::ClientContext*,
                                                 const Request&, Response*),
      const Request& request, bool admin = false,
      absl::Duration wait = absl::ZeroDuration()) const;

  std::unique_ptr<v1::ToolGate::Stub> stub_;
  ToolGateClientOptions options_;
};

}  // namespace client
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_TOOLGATE_CLIENT_H_
