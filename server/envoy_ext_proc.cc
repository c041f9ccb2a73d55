#include "server/envoy_ext_proc.h"

#include <chrono>
#include <exception>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "server/idle_deadline.h"
#include "server/tracing.h"

namespace toolgate {
namespace server {
namespace {

using envoy::service::ext_proc::v3::HttpBody;
using envoy::service::ext_proc::v3::HttpHeaders;
using envoy::service::ext_proc::v3::ProcessingRequest;
using envoy::service::ext_proc::v3::ProcessingResponse;

mesh::RpcError Fault(absl::string_view what) {
  return mesh::DeniedError("stream_fault", what);
}

// The headers a session reads, and the bytes of them it keeps at most: a
// stream holds these, never the rest of a header map (a map of ~1.8 MB
// fits in one gRPC message, and every open stream would keep two).
constexpr absl::string_view kReadHeaders[] = {
    ":method",       ":status",       "content-type",  "content-encoding",
    kRunIdHeader,    kSnapshotHeader, kRunGrantHeader, kToolHeader,
    kRouteHeader,    kDeniedHeader,
};
constexpr size_t kMaxKeptHeaderBytes = 16 * 1024;

// AddHeaders, of the headers a session reads only; false when what is
// kept would pass kMaxKeptHeaderBytes.
bool KeepReadHeaders(const envoy::config::core::v3::HeaderMap& map,
                     Headers* out) {
  envoy::config::core::v3::HeaderMap read;
  size_t bytes = 0;
  for (const auto& h : map.headers()) {
    const std::string name = absl::AsciiStrToLower(h.key());
    for (absl::string_view wanted : kReadHeaders) {
      if (name != wanted) continue;
      bytes += name.size() + h.value().size() + h.raw_value().size() + 1;
      if (bytes > kMaxKeptHeaderBytes) return false;
      *read.add_headers() = h;
    }
  }
  AddHeaders(read, out);
  return true;
}

absl::string_view HeadersTooLarge() {
  return "the headers toolgate reads (x-toolgate-*, :method, :status, "
         "content-type, content-encoding) hold more than 16384 bytes";
}

}  // namespace

std::optional<mesh::RpcError> ExtProcSession::TooLarge(absl::string_view what,
                                                       size_t held,
                                                       size_t more) const {
  const size_t cap = gate_.limits().json.max_bytes;
  if (more <= cap && held <= cap - more) return std::nullopt;
  return mesh::DeniedError(
      "body_too_large",
      absl::StrCat("the ", what, " body passed --max_input_bytes (", cap,
                   " bytes) at ", held + more, " bytes"));
}

ProcessingResponse ExtProcSession::Reject(const mesh::RpcError& error,
                                          envoy::type::v3::StatusCode status) {
  return Refuse(plan_.Refusal(error), status);
}

ProcessingResponse ExtProcSession::Refuse(const Json& answer,
                                          envoy::type::v3::StatusCode status) {
  phase_ = Phase::kDone;
  if (outcome_.decision.empty()) outcome_.decision = "DENIED";
  ProcessingResponse response;
  auto* immediate = response.mutable_immediate_response();
  immediate->mutable_status()->set_code(status);
  auto* headers = immediate->mutable_headers();
  SetHeader("content-type", "application/json", headers->add_set_headers());
  SetHeader(kDeniedHeader, "1", headers->add_set_headers());
  immediate->set_body(CanonicalJson(answer));
  immediate->set_details("toolgate_denied");
  return response;
}

ProcessingResponse ExtProcSession::OnRequestHeaders(
    const envoy::config::core::v3::HeaderMap& headers) {
  if (phase_ != Phase::kStart) return Reject(Fault("request headers twice"));
  phase_ = Phase::kRequest;
  if (!KeepReadHeaders(headers, &request_headers_)) {
    return Reject(Fault(HeadersTooLarge()));
  }
  const std::string grant = HeaderOr(request_headers_, kRunGrantHeader);
  if (!grant.empty()) run_ = grants_->Take(grant);
  ProcessingResponse response;
  // The grant and the route kind are toolgate's, never the tool server's.
  auto* mutation = response.mutable_request_headers()
                       ->mutable_response()
                       ->mutable_header_mutation();
  mutation->add_remove_headers(std::string(kRunGrantHeader));
  mutation->add_remove_headers(std::string(kRouteHeader));
  return response;
}

void ExtProcSession::PlanAnswer() {
  request_body_done_ = true;
  auto route = request_headers_.find(kRouteHeader);
  plan_ = gate_.Plan(
      mesh::ReadRoute(route == request_headers_.end()
                          ? std::nullopt
                          : std::optional<std::string>(route->second)),
      HeaderOr(request_headers_, kToolHeader), gate_.Read(request_body_));
}

ProcessingResponse ExtProcSession::OnRequestBody(const HttpBody& body) {
  if (phase_ != Phase::kRequest || request_body_done_) {
    return Reject(Fault("a request body out of order"));
  }
  // Past the cap the request is refused at once, never buffered further
  // (a body streamed in many pieces would otherwise grow without bound).
  if (std::optional<mesh::RpcError> error =
          TooLarge("request", request_body_.size(), body.body().size())) {
    return Reject(*error, envoy::type::v3::PayloadTooLarge);
  }
  request_body_.append(body.body());
  if (body.end_of_stream()) {
    PlanAnswer();
    // Refused before the tool server sees it: nothing runs.
    if (plan_.kind == mesh::AnswerPlan::Kind::kRefuse) {
      return Reject(plan_.refusal);
    }
  }
  ProcessingResponse response;
  response.mutable_request_body();
  return response;
}

ProcessingResponse ExtProcSession::OnResponseHeaders(
    const HttpHeaders& headers) {
  if (phase_ == Phase::kStart) {
    // A local reply of an earlier filter: only toolgate's own deny passes.
    Headers h;
    if (!KeepReadHeaders(headers.headers(), &h) ||
        HeaderOr(h, kDeniedHeader) != "1") {
      return Reject(Fault("a response without a request"));
    }
    phase_ = Phase::kPassThrough;
    ProcessingResponse response;
    response.mutable_response_headers();
    return response;
  }
  if (phase_ != Phase::kRequest) return Reject(Fault("response headers twice"));
  phase_ = Phase::kResponse;
  if (!KeepReadHeaders(headers.headers(), &response_headers_)) {
    return Reject(Fault(HeadersTooLarge()));
  }
  const bool post =
      absl::AsciiStrToUpper(HeaderOr(request_headers_, ":method")) == "POST";
  if (post && !request_body_done_) {
    return Reject(
        Fault("the request body was not sent to toolgate "
              "(request_body_mode must be BUFFERED)"));
  }
  // A request without a body (GET, DELETE) is a call only if ext_authz
  // named a tool.
  if (!request_body_done_) PlanAnswer();
  if (plan_.kind == mesh::AnswerPlan::Kind::kRefuse) {
    return Reject(plan_.refusal);
  }
  if (plan_.checked() && headers.end_of_stream()) {
    return Reject(mesh::DeniedError("no_answer", "the tool sent no body"));
  }
  ProcessingResponse response;
  response.mutable_response_headers();
  return response;
}

std::optional<Json> ExtProcSession::CheckAnswer() {
  mesh::AnswerAsk ask;
  ask.snapshot_id = HeaderOr(request_headers_, kSnapshotHeader);
  if (ask.snapshot_id.empty() && !run_) {
    return plan_.Refusal(mesh::DeniedError(
        "no_snapshot", "neither x-toolgate-snapshot nor a run"));
  }
  if (!HeaderOr(request_headers_, kRunIdHeader).empty() && !run_) {
    return plan_.Refusal(mesh::DeniedError(
        "run_grant_missing",
        "the request named a run but carried no valid "
        "x-toolgate-run-grant from ext_authz"));
  }
  if (run_) {
    ask.run_id = run_->run_id;
    ask.run_token = run_->run_token;
  }
  ask.source = std::string(kExtProcSource);
  mesh::HttpAnswer answer;
  answer.content_type = HeaderOr(response_headers_, "content-type");
  answer.content_encoding = HeaderOr(response_headers_, "content-encoding");
  (void)absl::SimpleAtoi(HeaderOr(response_headers_, ":status"),
                         &answer.status);
  answer.body = response_body_;
  mesh::AnswerVerdict verdict = gate_.Check(plan_, ask, answer);
  outcome_.decision = verdict.label;  // A constant.
  outcome_.violations = std::move(verdict.violations);
  if (verdict.checked) {
    outcome_.run_id = ask.run_id;
    outcome_.read_only = verdict.read_only;
  }
  if (verdict.valid) return std::nullopt;
  return std::move(verdict.answer);
}

ProcessingResponse ExtProcSession::OnResponseBody(const HttpBody& body) {
  ProcessingResponse response;
  if (phase_ == Phase::kPassThrough) {
    response.mutable_response_body();
    return response;
  }
  if (phase_ != Phase::kResponse) {
    return Reject(Fault("a response body before its headers"));
  }
  if (!plan_.checked()) {
    response.mutable_response_body();
    return response;
  }
  if (!body.end_of_stream()) {
    return Reject(
        Fault("a tool's answer in pieces (response_body_mode must "
              "be BUFFERED)"));
  }
  if (std::optional<mesh::RpcError> error =
          TooLarge("answer", response_body_.size(), body.body().size())) {
    return Reject(*error);
  }
  response_body_.append(body.body());
  if (std::optional<Json> refused = CheckAnswer()) {
    return Refuse(*refused, envoy::type::v3::BadGateway);
  }
  phase_ = Phase::kDone;
  response.mutable_response_body();
  return response;
}

MeshOutcome ExtProcSession::TakeOutcome() {
  // An answer let through unchecked: not a tool call's, or toolgate's own
  // deny. A tool call's answer never seen decides nothing.
  if (outcome_.decision.empty() &&
      (phase_ == Phase::kPassThrough ||
       (phase_ == Phase::kResponse && !plan_.checked()))) {
    outcome_.decision = "PASS_THROUGH";
  }
  return std::move(outcome_);
}

ProcessingResponse ExtProcSession::Step(const ProcessingRequest& request,
                                        bool* done) {
  ProcessingResponse response;
  switch (request.request_case()) {
    case ProcessingRequest::kRequestHeaders:
      response = OnRequestHeaders(request.request_headers().headers());
      break;
    case ProcessingRequest::kRequestBody:
      response = OnRequestBody(request.request_body());
      break;
    case ProcessingRequest::kResponseHeaders:
      response = OnResponseHeaders(request.response_headers());
      break;
    case ProcessingRequest::kResponseBody:
      response = OnResponseBody(request.response_body());
      break;
    case ProcessingRequest::kRequestTrailers:
      response.mutable_request_trailers();
      break;
    case ProcessingRequest::kResponseTrailers:
      response.mutable_response_trailers();
      break;
    default:
      response = Reject(Fault("an unknown message"));
  }
  *done = response.has_immediate_response();
  return response;
}

namespace {

// One stream: read a message, write its answer, read the next.
class ProcessReactor final
    : public grpc::ServerBidiReactor<ProcessingRequest, ProcessingResponse> {
 public:
  ProcessReactor(Engine* engine, GrantStore* grants, ServerMetrics* metrics,
                 trace::Tracer* tracer, CallStreams* streams,
                 grpc::CallbackServerContext* context)
      : session_(engine, grants),
        metrics_(metrics),
        tracer_(tracer),
        streams_(streams),
        context_(context) {
    // Every open stream holds its request's body and answer: without a cap
    // a client opening streams and leaving them open grows the server
    // without bound. Envoy's filter fails closed on the error.
    if (streams_ != nullptr && !streams_->TryOpen()) {
      Finish(grpc::Status(
          grpc::StatusCode::RESOURCE_EXHAUSTED,
          absl::StrCat("more than ", streams_->max_open(),
                       " ext_proc Process streams are open already "
                       "(--max_ext_proc_streams)")));
      return;
    }
    has_slot_ = streams_ != nullptr;
    // A stream that never sends its first message would hold its slot
    // forever. After it, the stream waits for the tool's answer for as long
    // as the tool takes (Envoy's own timeouts bound that): no deadline.
    if (has_slot_ && streams_->idle_timeout_ms() > 0) {
      idle_ = IdleDeadline::Start(streams_->idle_timeout_ms(),
                                  [this] { Expire(); });
    }
    StartRead(&request_);
  }
  ~ProcessReactor() override {
    if (has_slot_) streams_->Close();
  }
  void OnReadDone(bool ok) override {
    if (idle_ != nullptr) {
      const bool arrived = idle_->Arrived();
      idle_->Release();  // Never Waiting() again: it ends nothing now.
      idle_ = nullptr;
      if (!arrived) return;  // Ended idle already: nothing to answer.
    }
    if (!ok) {  // Envoy closed its side: nothing more to answer.
      Done(grpc::Status::OK);
      return;
    }
    // Without metrics nothing is timed: the clock costs too.
    const auto start = metrics_ != nullptr
                           ? std::chrono::steady_clock::now()
                           : std::chrono::steady_clock::time_point();
    // The stream's span starts with its first message: the request's
    // headers carry the agent's trace context.
    if (tracer_ != nullptr && !trace_.has_value()) {
      // As the session reads them: a header sent twice is joined, so a
      // traceparent sent twice is invalid (W3C), as ext_authz sees it.
      Headers headers;
      if (request_.has_request_headers()) {
        AddHeaders(request_.request_headers().headers(), &headers);
      }
      std::optional<trace::RequestTrace> started = StartMeshTrace(
          tracer_, *context_, HeaderOr(headers, "traceparent"),
          HeaderOr(headers, "tracestate"),
          "envoy.service.ext_proc.v3.ExternalProcessor", "Process");
      if (started.has_value()) trace_.emplace(std::move(*started));
    }
    try {
      response_ = session_.Step(request_, &done_);
      // Freed, not cleared: a cleared message keeps its strings' capacity
      // (up to a whole gRPC message) for as long as the stream is open.
      if (metrics_ != nullptr) input_bytes_ += request_.ByteSizeLong();
      ProcessingRequest().Swap(&request_);
    } catch (const std::exception& e) {
      // Never a CONTINUE: the filter fails closed on a failed stream.
      failed_ = true;
      Done(grpc::Status(grpc::StatusCode::INTERNAL, e.what()));
      return;
    }
    if (metrics_ != nullptr) {
      busy_ += std::chrono::steady_clock::now() - start;
    }
    StartWrite(&response_);
  }
  void OnWriteDone(bool ok) override {
    if (!ok || done_) {
      Done(grpc::Status::OK);
      return;
    }
    StartRead(&request_);
  }
  void OnDone() override {
    if (idle_ != nullptr) idle_->Release();
    delete this;
  }

 private:
  // On the alarm's thread, while the first read is pending and nothing
  // else touches the stream (see IdleDeadline).
  void Expire() {
    Done(grpc::Status(
        grpc::StatusCode::DEADLINE_EXCEEDED,
        absl::StrCat("ext_proc Process: no first message for ",
                     streams_->idle_timeout_ms(),
                     " ms (--stream_idle_timeout_ms)")));
  }
  void Done(const grpc::Status& status) {
    trace::RequestTrace* span =
        trace_.has_value() && trace_->recording() ? &*trace_ : nullptr;
    if (metrics_ != nullptr || span != nullptr) {
      // The answers are already sent: counting cannot change them.
      static const int slot = ServerMetrics::RpcSlot("ext_proc.Process");
      MeshOutcome outcome = session_.TakeOutcome();
      if (failed_) outcome = MeshOutcome();  // The error counts it.
      if (span != nullptr) {
        SetMeshOutcome(*span, outcome);
        SetStatus(*span, status);
        span->End();
      }
      if (metrics_ != nullptr) {
        if (status.ok()) metrics_->DecidedMesh(slot, outcome);
        metrics_->Finished(slot, status, busy_.count(), input_bytes_);
      }
    }
    Finish(status);
  }

  ExtProcSession session_;
  ServerMetrics* const metrics_;
  trace::Tracer* const tracer_;
  CallStreams* const streams_;  // May be null: no cap.
  bool has_slot_ = false;
  IdleDeadline* idle_ = nullptr;  // Until the first message; may be null.
  grpc::CallbackServerContext* const context_;
  std::optional<trace::RequestTrace> trace_;
  ProcessingRequest request_;
  ProcessingResponse response_;
  bool done_ = false;
  bool failed_ = false;
  std::chrono::duration<double> busy_{0};
  size_t input_bytes_ = 0;
};

}  // namespace

grpc::ServerBidiReactor<ProcessingRequest, ProcessingResponse>*
EnvoyExtProcService::Process(grpc::CallbackServerContext* context) {
  return new ProcessReactor(engine_, grants_, metrics_, tracer_, streams_,
                            context);
}

}  // namespace server
}  // namespace toolgate
