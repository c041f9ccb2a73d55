// The server's side of tracing (docs/operating.md "Tracing"): the caller's
// W3C trace context from gRPC metadata or from the HTTP headers Envoy
// passes, and each RPC's attributes, read from what it answered.
//
// Attributes follow OpenTelemetry's conventions where one exists
// (rpc.system, rpc.service, rpc.method, rpc.grpc.status_code,
// gen_ai.tool.name, gen_ai.request.model) and are toolgate.* otherwise.
// They carry codes, names and ids only: never argument values, model or
// tool output, tokens or protected texts. A tool name is set only when it
// named a tool of the snapshot (a model's unknown name is its own text).
//
// Thread-safety: functions only; CurrentTrace is per thread.
#ifndef TOOLGATE_SERVER_TRACING_H_
#define TOOLGATE_SERVER_TRACING_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "core/trace/tracer.h"
#include "grpcpp/grpcpp.h"
#include "server/metrics.h"
#include "toolgate/v1/toolgate.pb.h"

namespace toolgate {
namespace server {

// traceparent / tracestate of a gRPC call's metadata; nullopt when absent
// or invalid, or when traceparent came twice (the call then starts a
// trace of its own).
std::optional<trace::TraceContext> TraceParentOf(
    const grpc::ServerContextBase& context);

// The server span's common attributes, and its status once answered: an
// error's code and its name as the span's status, never its message.
// "service/method", a server span's name, kept for the program's life so
// spans name it by a view (computed once per method, at registration).
trace::StaticText InternSpanName(absl::string_view service,
                                 absl::string_view method);

// `service` and `method` are the program's constants (kept as views).
void SetRpc(trace::RequestTrace& trace, trace::StaticText service,
            trace::StaticText method);
void SetStatus(trace::RequestTrace& trace, const grpc::Status& status);

// What an answer says, on the server span.
void SetAnswer(trace::RequestTrace& trace,
               const v1::ValidateToolCallRequest& request,
               const v1::ValidateToolCallResponse& response);
void SetAnswer(trace::RequestTrace& trace,
               const v1::ToolCallStreamRequest& header,
               const v1::ValidateToolCallResponse& response);
void SetAnswer(trace::RequestTrace& trace,
               const v1::ValidateToolOutputRequest& request,
               const v1::ValidateToolOutputResponse& response);
void SetAnswer(trace::RequestTrace& trace,
               const v1::ExtractVerdictRequest& request,
               const v1::ExtractVerdictResponse& response);
void SetAnswer(trace::RequestTrace& trace, const v1::OpenRunRequest& request,
               const v1::OpenRunResponse& response);
void SetAnswer(trace::RequestTrace& trace,
               const v1::DecideApprovalRequest& request,
               const v1::DecideApprovalResponse& response);
template <typename Request, typename Response>
void SetAnswer(trace::RequestTrace&, const Request&, const Response&) {}

// A mesh call's server span: its parent from the HTTP request's
// traceparent/tracestate as Envoy passes them (the agent's trace; a
// header sent twice passed joined, as ext_authz's map joins it), else
// from the gRPC metadata of Envoy's own call; empty when tracing is off.
std::optional<trace::RequestTrace> StartMeshTrace(
    trace::Tracer* tracer, const grpc::ServerContextBase& context,
    absl::string_view traceparent, absl::string_view tracestate,
    trace::StaticText service, trace::StaticText method);
// What a mesh call decided (docs/mesh.md "Metrics" labels), on its span.
void SetMeshOutcome(trace::RequestTrace& trace, const MeshOutcome& outcome);

// The trace of the RPC this thread is serving, for the typed service to
// hand to the engine (the typed methods keep gRPC's signature, so it
// cannot be a parameter); null when none. Set by TraceScope.
trace::RequestTrace* CurrentTrace();

class TraceScope {
 public:
  explicit TraceScope(trace::RequestTrace* trace);
  ~TraceScope();
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  trace::RequestTrace* previous_;
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_TRACING_H_
