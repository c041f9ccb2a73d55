// envoy.service.ext_proc.v3.ExternalProcessor/Process: Envoy's ext_proc
// filter hands toolgate a `tools/call`'s answer before the model reads it.
//
// One stream per HTTP request. Expected processing mode (docs/mesh.md):
// request headers SEND, request body BUFFERED, response headers SEND,
// response body BUFFERED. ExtProcSession is the Envoy stream's state
// machine and the proto conversion; what the answer is checked as and the
// check itself are core/mesh's (mcp_gate.h: Plan, Check, over the Engine;
// audit source "envoy_ext_proc"). The session keeps what the stream showed
// earlier: the request's body, read once into the answer's plan from
// x-toolgate-route and x-toolgate-tool (set by ext_authz on every allow),
// the snapshot ext_authz set in x-toolgate-snapshot, the run taken back
// from x-toolgate-run-grant. A request whose plan refuses (not one
// ext_authz allows with its route and tool, a batch that cannot be
// checked) is refused before it goes upstream. A request body and a
// checked answer are held up to --max_input_bytes: the piece that passes
// it is refused at once (body_too_large; HTTP 413 for the request).
// VALID: CONTINUE. Anything else is an immediate_response 502 holding the
// plan's refusal (a JSON-RPC error for the same id, one per message of a
// batch; REST: {"error": ...}): an INVALID answer, a tool error, an answer
// toolgate cannot read, a request that named a run without a grant,
// toolgate failing, and every stream fault (a body before its headers, a
// response before its request, a request body never sent for a POST, a
// tool's answer streamed in pieces, headers toolgate reads holding more
// than 16 KiB). Only the headers it reads are kept. Other requests' answers (initialize,
// tools/list, ...) continue unchecked. x-toolgate-run-grant and
// x-toolgate-route are removed before the request goes upstream.
//
// A response that comes first on a stream is a local reply of an earlier
// filter: toolgate's own ext_authz deny (marked x-toolgate-denied) goes
// through so the agent reads it; any other is replaced by a deny.
//
// Metrics (docs/mesh.md "Metrics"): one decision per stream, a value of
// ServerMetrics::DecisionNames("ext_proc.Process"): VALID / INVALID as the
// engine checked a tool call's answer (a batch: INVALID if any call's
// was); ERROR when the engine failed; DENIED for a deny before any check
// (stream faults, a run without its grant, an answer toolgate cannot read
// or that is not HTTP 2xx); PASS_THROUGH for an answer let through
// unchecked (not a tool call, toolgate's own deny). A stream that ends
// before its answer decides nothing. The duration is toolgate's own time on
// the stream's messages (not the tool's), the size the messages' total.
//
// Thread-safety: an ExtProcSession belongs to one stream (gRPC runs a
// reactor's callbacks one at a time); the service may serve many streams.
#ifndef TOOLGATE_SERVER_ENVOY_EXT_PROC_H_
#define TOOLGATE_SERVER_ENVOY_EXT_PROC_H_

#include <string>

#include "core/engine/engine.h"
#include "core/trace/tracer.h"
#include "core/json/strict_json.h"
#include "core/mesh/answer_plan.h"
#include "core/mesh/engine_decider.h"
#include "core/mesh/mcp_gate.h"
#include "envoy/service/ext_proc/v3/external_processor.grpc.pb.h"
#include "server/call_streams.h"
#include "server/envoy_common.h"
#include "server/mesh_grants.h"
#include "server/metrics.h"

namespace toolgate {
namespace server {

inline constexpr absl::string_view kExtProcSource = "envoy_ext_proc";

class ExtProcSession {
 public:
  ExtProcSession(Engine* engine, GrantStore* grants)
      : grants_(grants),
        decider_(engine),
        gate_(&decider_, decider_.limits()) {}

  // The answer to one message; `*done` once the stream should end.
  envoy::service::ext_proc::v3::ProcessingResponse Step(
      const envoy::service::ext_proc::v3::ProcessingRequest& request,
      bool* done);

  // What the stream decided so far (see above); the session is spent.
  MeshOutcome TakeOutcome();

 private:
  enum class Phase { kStart, kRequest, kResponse, kPassThrough, kDone };
  using Response = envoy::service::ext_proc::v3::ProcessingResponse;

  Response OnRequestHeaders(const envoy::config::core::v3::HeaderMap& headers);
  Response OnRequestBody(const envoy::service::ext_proc::v3::HttpBody& body);
  Response OnResponseHeaders(
      const envoy::service::ext_proc::v3::HttpHeaders& headers);
  Response OnResponseBody(const envoy::service::ext_proc::v3::HttpBody& body);
  // The request body is whole: what its answer is checked as.
  void PlanAnswer();
  // The answer of a tool call, checked: nullopt when it may go on, else
  // what the agent gets instead.
  std::optional<Json> CheckAnswer();
  // body_too_large when `held` + `more` bytes pass --max_input_bytes.
  std::optional<mesh::RpcError> TooLarge(absl::string_view what, size_t held,
                                         size_t more) const;
  // Ends the stream with `error` in the plan's shape (or `answer` itself).
  Response Reject(
      const mesh::RpcError& error,
      envoy::type::v3::StatusCode status = envoy::type::v3::BadGateway);
  Response Refuse(const Json& answer, envoy::type::v3::StatusCode status);

  GrantStore* const grants_;
  mesh::EngineDecider decider_;
  const mesh::McpGate gate_;
  Phase phase_ = Phase::kStart;
  Headers request_headers_;
  std::string request_body_;
  bool request_body_done_ = false;
  std::optional<RunCredential> run_;
  // Refuses until the request body is read.
  mesh::AnswerPlan plan_;
  Headers response_headers_;
  std::string response_body_;
  MeshOutcome outcome_;
};

class EnvoyExtProcService final
    : public envoy::service::ext_proc::v3::ExternalProcessor::CallbackService {
 public:
  // No pointer is owned; all must outlive the service. `metrics` may be
  // null (nothing counted, nothing timed).
  // `streams` (may be null: no cap) caps the Process streams open at once
  // (--max_ext_proc_streams): past it a stream is RESOURCE_EXHAUSTED before
  // any message is read.
  EnvoyExtProcService(Engine* engine, GrantStore* grants,
                      ServerMetrics* metrics = nullptr,
                      trace::Tracer* tracer = nullptr,
                      CallStreams* streams = nullptr)
      : engine_(engine),
        grants_(grants),
        metrics_(metrics),
        tracer_(tracer),
        streams_(streams) {}

  grpc::ServerBidiReactor<envoy::service::ext_proc::v3::ProcessingRequest,
                          envoy::service::ext_proc::v3::ProcessingResponse>*
  Process(grpc::CallbackServerContext* context) override;

 private:
  Engine* const engine_;
  GrantStore* const grants_;
  ServerMetrics* const metrics_;
  trace::Tracer* const tracer_;  // May be null: tracing off.
  CallStreams* const streams_;   // May be null: no cap.
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_ENVOY_EXT_PROC_H_
