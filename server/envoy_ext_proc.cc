#include "server/envoy_ext_proc.h"

#include <chrono>
#include <exception>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/mesh/mcp_request.h"
#include "core/mesh/tool_response.h"

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

}  // namespace

std::optional<mesh::RpcError> ExtProcSession::TooLarge(absl::string_view what,
                                                       size_t held,
                                                       size_t more) const {
  const size_t cap = engine_->options().limits.max_bytes;
  if (more <= cap && held <= cap - more) return std::nullopt;
  return mesh::DeniedError(
      "body_too_large",
      absl::StrCat("the ", what, " body passed --max_input_bytes (", cap,
                   " bytes) at ", held + more, " bytes"));
}

ProcessingResponse ExtProcSession::Reject(const mesh::RpcError& error,
                                          envoy::type::v3::StatusCode status) {
  phase_ = Phase::kDone;
  if (outcome_.decision.empty()) outcome_.decision = "DENIED";
  ProcessingResponse response;
  auto* immediate = response.mutable_immediate_response();
  immediate->mutable_status()->set_code(status);
  auto* headers = immediate->mutable_headers();
  SetHeader("content-type", "application/json", headers->add_set_headers());
  SetHeader(kDeniedHeader, "1", headers->add_set_headers());
  immediate->set_body(rest_
                          ? CanonicalJson({{"error", mesh::ErrorObject(error)}})
                          : mesh::JsonRpcErrorBody(id_, error));
  immediate->set_details("toolgate_denied");
  return response;
}

ProcessingResponse ExtProcSession::OnRequestHeaders(
    const envoy::config::core::v3::HeaderMap& headers) {
  if (phase_ != Phase::kStart) return Reject(Fault("request headers twice"));
  phase_ = Phase::kRequest;
  AddHeaders(headers, &request_headers_);
  const std::string grant = HeaderOr(request_headers_, kRunGrantHeader);
  if (!grant.empty()) run_ = grants_->Take(grant);
  ProcessingResponse response;
  // The grant is toolgate's, never the tool server's.
  response.mutable_request_headers()
      ->mutable_response()
      ->mutable_header_mutation()
      ->add_remove_headers(std::string(kRunGrantHeader));
  return response;
}

void ExtProcSession::ReadRequestBody() {
  request_body_done_ = true;
  // ext_authz names the tool of every call it allowed (and sets the header
  // empty otherwise): such an answer is checked, whatever the body looks
  // like (a REST body may look like any JSON-RPC message).
  const std::string named = HeaderOr(request_headers_, kToolHeader);
  absl::StatusOr<mesh::McpBody> body =
      mesh::ReadMcpBody(request_body_, engine_->options().limits);
  if (body.ok() && body->batch) {
    for (const auto& m : body->messages) {
      if (m.kind == mesh::McpKind::kToolCall) unchecked_batch_ = true;
    }
  }
  if (unchecked_batch_) return;  // Denied at the response's headers.
  const mesh::McpMessage* call =
      body.ok() && !body->batch &&
              body->messages[0].kind == mesh::McpKind::kToolCall
          ? &body->messages[0]
          : nullptr;
  if (call != nullptr && (named.empty() || named == call->tool)) {
    tool_call_ = true;  // An MCP tools/call: its JSON-RPC answer.
    id_ = call->id;
    tool_ = call->tool;
  } else if (!named.empty()) {
    tool_call_ = true;  // A REST call: the tool's raw answer.
    rest_ = true;
    tool_ = named;
  }
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
  if (body.end_of_stream()) ReadRequestBody();
  ProcessingResponse response;
  response.mutable_request_body();
  return response;
}

ProcessingResponse ExtProcSession::OnResponseHeaders(
    const HttpHeaders& headers) {
  if (phase_ == Phase::kStart) {
    // A local reply of an earlier filter: only toolgate's own deny passes.
    Headers h;
    AddHeaders(headers.headers(), &h);
    if (HeaderOr(h, kDeniedHeader) != "1") {
      return Reject(Fault("a response without a request"));
    }
    phase_ = Phase::kPassThrough;
    ProcessingResponse response;
    response.mutable_response_headers();
    return response;
  }
  if (phase_ != Phase::kRequest) return Reject(Fault("response headers twice"));
  phase_ = Phase::kResponse;
  AddHeaders(headers.headers(), &response_headers_);
  const bool post =
      absl::AsciiStrToUpper(HeaderOr(request_headers_, ":method")) == "POST";
  if (post && !request_body_done_) {
    return Reject(
        Fault("the request body was not sent to toolgate "
              "(request_body_mode must be BUFFERED)"));
  }
  // A request without a body (GET, DELETE) is a call only if ext_authz
  // named a tool.
  if (!request_body_done_) ReadRequestBody();
  if (unchecked_batch_) {
    return Reject(mesh::DeniedError(
        "batch_not_checked", "answers to batched tool calls are not checked"));
  }
  if (tool_call_ && headers.end_of_stream()) {
    return Reject(mesh::DeniedError("no_answer", "the tool sent no body"));
  }
  ProcessingResponse response;
  response.mutable_response_headers();
  return response;
}

std::optional<mesh::RpcError> ExtProcSession::CheckAnswer() {
  ValidateOutputRequest request;
  request.snapshot_id = HeaderOr(request_headers_, kSnapshotHeader);
  if (request.snapshot_id.empty() && !run_) {
    return mesh::DeniedError("no_snapshot",
                             "neither x-toolgate-snapshot nor a run");
  }
  if (!HeaderOr(request_headers_, kRunIdHeader).empty() && !run_) {
    return mesh::DeniedError("run_grant_missing",
                             "the request named a run but carried no valid "
                             "x-toolgate-run-grant from ext_authz");
  }
  if (run_) {
    request.run_id = run_->run_id;
    request.run_token = run_->run_token;
  }
  request.tool_name = tool_;
  request.mode = output::OutputMode::kFailClosed;
  request.source = std::string(kExtProcSource);
  const std::string content_type = HeaderOr(response_headers_, "content-type");
  int status = 0;
  (void)absl::SimpleAtoi(HeaderOr(response_headers_, ":status"), &status);
  std::string body;
  if (rest_) {
    request.content_type = content_type;
    request.http_status = status;
    request.body = response_body_;
  } else {
    if (status < 200 || status > 299) {
      return mesh::DeniedError("http_status", "the tool server answered HTTP " +
                                                  std::to_string(status));
    }
    absl::StatusOr<Json> answer = mesh::FindToolResponse(
        content_type, response_body_, id_, engine_->options().limits);
    absl::StatusOr<std::string> result =
        answer.ok() ? mesh::ToolResultBody(*answer) : answer.status();
    if (!result.ok()) {
      const std::string message(result.status().message());
      return mesh::DeniedError(message.substr(0, message.find(':')), message);
    }
    body = *std::move(result);
    request.content_type = "application/json";
    request.http_status = output::kNoHttpStatus;
    request.body = body;
  }
  absl::StatusOr<ValidateOutputResponse> checked =
      engine_->ValidateToolOutput(request);
  if (!checked.ok()) {
    outcome_.decision = "ERROR";
    return ErrorForStatus(checked.status());
  }
  const bool valid = checked->result.verdict == output::OutputVerdict::kValid;
  outcome_.decision = valid ? "VALID" : "INVALID";
  for (const auto& v : checked->result.violations) {
    outcome_.violations.push_back(v.code);
  }
  outcome_.run_id = request.run_id;
  outcome_.read_only = checked->read_only;
  if (!valid) {
    return mesh::ErrorForOutput(*checked);
  }
  return std::nullopt;
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
  if (!tool_call_) {
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
  if (std::optional<mesh::RpcError> error = CheckAnswer())
    return Reject(*error);
  phase_ = Phase::kDone;
  response.mutable_response_body();
  return response;
}

MeshOutcome ExtProcSession::TakeOutcome() {
  // An answer let through unchecked: not a tool call's, or toolgate's own
  // deny. A tool call's answer never seen decides nothing.
  if (outcome_.decision.empty() &&
      (phase_ == Phase::kPassThrough ||
       (phase_ == Phase::kResponse && !tool_call_))) {
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
  ProcessReactor(Engine* engine, RunGrants* grants, ServerMetrics* metrics)
      : session_(engine, grants), metrics_(metrics) {
    StartRead(&request_);
  }
  void OnReadDone(bool ok) override {
    if (!ok) {  // Envoy closed its side: nothing more to answer.
      Done(grpc::Status::OK);
      return;
    }
    // Without metrics nothing is timed: the clock costs too.
    const auto start = metrics_ != nullptr
                           ? std::chrono::steady_clock::now()
                           : std::chrono::steady_clock::time_point();
    try {
      response_ = session_.Step(request_, &done_);
    } catch (const std::exception& e) {
      // Never a CONTINUE: the filter fails closed on a failed stream.
      failed_ = true;
      Done(grpc::Status(grpc::StatusCode::INTERNAL, e.what()));
      return;
    }
    if (metrics_ != nullptr) {
      busy_ += std::chrono::steady_clock::now() - start;
      input_bytes_ += request_.ByteSizeLong();
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
  void OnDone() override { delete this; }

 private:
  void Done(const grpc::Status& status) {
    if (metrics_ != nullptr) {
      // The answers are already sent: counting cannot change them.
      static const int slot = ServerMetrics::RpcSlot("ext_proc.Process");
      MeshOutcome outcome = session_.TakeOutcome();
      if (failed_) outcome = MeshOutcome();  // The error counts it.
      if (status.ok()) metrics_->DecidedMesh(slot, outcome);
      metrics_->Finished(slot, status, busy_.count(), input_bytes_);
    }
    Finish(status);
  }

  ExtProcSession session_;
  ServerMetrics* const metrics_;
  ProcessingRequest request_;
  ProcessingResponse response_;
  bool done_ = false;
  bool failed_ = false;
  std::chrono::duration<double> busy_{0};
  size_t input_bytes_ = 0;
};

}  // namespace

grpc::ServerBidiReactor<ProcessingRequest, ProcessingResponse>*
EnvoyExtProcService::Process(grpc::CallbackServerContext*) {
  return new ProcessReactor(engine_, grants_, metrics_);
}

}  // namespace server
}  // namespace toolgate
