// Conversions between toolgate.v1 protos and core values. The server is a
// thin adapter: every mapping decision lives here, in one place.
#ifndef TOOLGATE_SERVER_CONVERT_H_
#define TOOLGATE_SERVER_CONVERT_H_

#include "absl/status/status.h"
#include "core/engine/engine.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/status.h"
#include "toolgate/v1/toolgate.pb.h"

namespace toolgate {
namespace server {

grpc::Status ToGrpc(const absl::Status& status);

// The audit source and metrics rpc label of calls the MCP stdio gateway
// makes (requests carrying mcp_request_id; docs/gateway.md).
inline constexpr absl::string_view kMcpStdioSource = "mcp.stdio";
// Longest accepted mcp_request_id (an MCP request id as JSON).
inline constexpr size_t kMaxMcpRequestIdBytes = 256;

// What the engine checks to learn that the caller has gone: the call's
// cancellation (client cancel, or gRPC's own deadline enforcement) and its
// deadline. A null context never cancels.
CancelToken ToCancelToken(grpc::ServerContextBase* context);

// UNSPECIFIED means AUTO.
ManifestFormat FromProto(v1::ManifestFormat format);
v1::ManifestFormat ToProto(ManifestFormat format);
v1::Decision ToProto(Decision decision);

// UNSPECIFIED (and values this build does not name) is kUnspecified: the
// engine refuses it as INVALID_ARGUMENT.
stream::Format FromProto(v1::StreamFormat format);
// The request points into `request` (text, native_json, events), which
// must outlive it.
ValidateCallRequest FromProto(const v1::ValidateToolCallRequest& request);
// Takes the strings out of `in`.
void ToProto(ValidateCallResponse&& in, v1::ValidateToolCallResponse* out);
void ToProto(const Violation& in, v1::Violation* out);

VerdictRequest FromProto(const v1::ExtractVerdictRequest& request);
// Takes the strings out of `in`.
void ToProto(VerdictResponse&& in, v1::ExtractVerdictResponse* out);

ValidateOutputRequest FromProto(const v1::ValidateToolOutputRequest& request);

ApprovalState FromProto(v1::ApprovalState state);
v1::ApprovalState ToProto(ApprovalState state);
void ToProto(const Approval& in, v1::Approval* out);
void ToProto(const ValidateOutputResponse& in,
             v1::ValidateToolOutputResponse* out);

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_CONVERT_H_
