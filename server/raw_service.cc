#include "server/raw_service.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "grpcpp/impl/codegen/server_callback_handlers.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "server/convert.h"
#include "server/idle_deadline.h"
#include "server/request_diagnosis.h"
#include "server/tracing.h"

namespace toolgate {
namespace server {

grpc::Status ParseRequest(const grpc::ByteBuffer& bytes,
                          google::protobuf::Message* request) {
  // The reader only reads; it takes a non-const pointer for its own reasons.
  grpc::ProtoBufferReader reader(const_cast<grpc::ByteBuffer*>(&bytes));
  if (request->ParseFromZeroCopyStream(&reader)) return grpc::Status::OK;
  std::vector<grpc::Slice> slices;
  std::string raw;
  if (bytes.Dump(&slices).ok()) {
    for (const grpc::Slice& s : slices) {
      raw.append(reinterpret_cast<const char*>(s.begin()), s.size());
    }
  }
  return grpc::Status(
      grpc::StatusCode::INVALID_ARGUMENT,
      DiagnoseUnparsableRequest(raw, *request->GetDescriptor()));
}

namespace {

std::atomic<int> waiting_calls{0};

// Runs a waiting method on a thread of its own (see raw_service.h) and
// finishes the call from there. Deletes itself once gRPC is done with it.
class WaitingReactor final : public grpc::ServerUnaryReactor {
 public:
  explicit WaitingReactor(std::function<grpc::Status()> handle) {
    if (waiting_calls.fetch_add(1) >= kMaxWaitingCalls) {
      waiting_calls.fetch_sub(1);
      Finish(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                          absl::StrCat("more than ", kMaxWaitingCalls,
                                       " calls are waiting already")));
      return;
    }
    // The reactor lives until OnDone, which comes only after Finish.
    std::thread([this, handle = std::move(handle)] {
      grpc::Status status = handle();
      waiting_calls.fetch_sub(1);
      Finish(status);
    }).detach();
  }
  void OnDone() override { delete this; }
};

// The server span of one call (OpenTelemetry's name for a gRPC span:
// "package.Service/Method"); empty when tracing is off.
// `method` is a literal; `span_name` its InternSpanName.
std::optional<trace::RequestTrace> StartTrace(
    trace::Tracer* tracer, const grpc::ServerContextBase& context,
    const char* method, trace::StaticText span_name) {
  std::optional<trace::RequestTrace> trace;
  if (tracer == nullptr) return trace;
  trace.emplace(tracer, trace::RequestTrace::StaticName{}, span_name,
                TraceParentOf(context));
  if (trace->recording()) {
    SetRpc(*trace, trace::StaticText::Of(v1::ToolGate::service_full_name()),
           trace::StaticText::Of(method));
  }
  return trace;
}

trace::StaticText StreamSpanName() {
  static const trace::StaticText name = InternSpanName(
      v1::ToolGate::service_full_name(), "ValidateToolCallStream");
  return name;
}

trace::RequestTrace* Recording(std::optional<trace::RequestTrace>& trace) {
  return trace.has_value() && trace->recording() ? &*trace : nullptr;
}

template <typename Request, typename Response>
grpc::Status Serve(ToolGateService* typed,
                   grpc::Status (ToolGateService::*method)(
                       grpc::ServerContextBase*, const Request*, Response*),
                   grpc::CallbackServerContext* context,
                   const grpc::ByteBuffer& bytes, Response* response,
                   ServerMetrics* metrics, trace::Tracer* tracer,
                   const char* name, trace::StaticText span_name, int* slot) {
  std::optional<trace::RequestTrace> trace =
      StartTrace(tracer, *context, name, span_name);
  trace::RequestTrace* span = Recording(trace);
  Request request;
  grpc::Status status = ParseRequest(bytes, &request);
  if (status.ok()) {
    *slot = ServerMetrics::SlotFor(request, *slot);
    TraceScope scope(span);
    status = (typed->*method)(context, &request, response);
  }
  if (status.ok() && metrics != nullptr) metrics->Decided(request, *response);
  if (span != nullptr) {
    if (status.ok()) SetAnswer(*span, request, *response);
    SetStatus(*span, status);
  }
  return status;
}

// ValidateToolCallStream: reads messages until the client half-closes, or
// until the decision is fixed (ToolCallStream::decided), each message's
// events assembled as it arrives; then decides on gRPC's callback thread
// like the unary methods, and finishes the call.
//
// Finish with an answer is only ever called with no read pending (from
// the constructor, before any, or from OnReadDone, before the next): no
// read completes after the answer, and OnDone, which frees the reactor,
// comes once gRPC is done with the call. The client's messages still in
// flight are dropped by gRPC (the call is over: its writes fail).
//
// The one exception is a stream idle past --stream_idle_timeout_ms
// (IdleDeadline): it is finished DEADLINE_EXCEEDED from the alarm's thread
// while its read is pending, with no decision; that read then completes
// and is dropped (Arrived() false).
class ToolCallStreamReactor final
    : public grpc::ServerReadReactor<grpc::ByteBuffer> {
 public:
  ToolCallStreamReactor(ToolGateService* typed, ServerMetrics* metrics,
                        CallStreams* streams, trace::Tracer* tracer,
                        grpc::CallbackServerContext* context,
                        v1::ValidateToolCallResponse* response)
      : typed_(typed),
        metrics_(metrics),
        streams_(streams),
        context_(context),
        response_(response),
        start_(metrics != nullptr ? std::chrono::steady_clock::now()
                                  : std::chrono::steady_clock::time_point()),
        trace_(StartTrace(tracer, *context, "ValidateToolCallStream",
                          StreamSpanName())) {
    if (!streams_->TryOpen()) {
      Done(grpc::Status(
          grpc::StatusCode::RESOURCE_EXHAUSTED,
          absl::StrCat("more than ", streams_->max_open(),
                       " ValidateToolCallStream calls are open already "
                       "(--max_call_streams)")));
      return;
    }
    has_slot_ = true;
    stream_ = typed->NewToolCallStream();
    if (streams_->idle_timeout_ms() > 0) {
      idle_ = IdleDeadline::Start(streams_->idle_timeout_ms(),
                                  [this] { Expire(); });
    }
    StartRead(&bytes_);
  }
  ~ToolCallStreamReactor() override {
    Release();
    if (has_slot_) streams_->Close();
  }

  void OnReadDone(bool ok) override {
    // Ended idle already: what was read (or not) counts for nothing.
    if (idle_ != nullptr && !idle_->Arrived()) return;
    if (!ok) return Decide();  // Half-closed, or gone: the engine sees it.
    const size_t size = bytes_.Length();
    input_bytes_ += size;
    v1::ToolCallStreamRequest message;
    grpc::Status status = ParseRequest(bytes_, &message);
    bytes_.Clear();
    if (status.ok()) status = ToGrpc(stream_->Add(message, size));
    if (!status.ok()) return Done(status);
    Account();
    if (stream_->decided()) return Decide();  // Nothing later changes it.
    if (idle_ != nullptr) idle_->Waiting();
    StartRead(&bytes_);
  }
  void OnDone() override {
    if (idle_ != nullptr) idle_->Release();
    delete this;
  }

 private:
  // On the alarm's thread, while the read is pending and nothing else
  // touches the stream (see IdleDeadline).
  void Expire() {
    Done(grpc::Status(
        grpc::StatusCode::DEADLINE_EXCEEDED,
        absl::StrCat("ValidateToolCallStream: no message for ",
                     streams_->idle_timeout_ms(),
                     " ms (--stream_idle_timeout_ms); nothing was decided")));
  }
  void Decide() {
    TraceScope scope(Recording(trace_));
    Done(typed_->ValidateToolCallStream(context_, stream_.get(), response_));
  }
  void Done(const grpc::Status& status) {
    if (metrics_ != nullptr) {
      static const int slot = ServerMetrics::RpcSlot("ValidateToolCallStream");
      if (status.ok()) metrics_->DecidedStream(stream_->run_id(), *response_);
      const std::chrono::duration<double> took =
          std::chrono::steady_clock::now() - start_;
      metrics_->Finished(slot, status, took.count(), input_bytes_);
    }
    if (trace::RequestTrace* span = Recording(trace_)) {
      if (status.ok()) SetAnswer(*span, stream_->header(), *response_);
      SetStatus(*span, status);
      span->End();
    }
    Release();  // The answer is made: nothing of the stream is needed.
    // The slot is given back at OnDone (the destructor), when gRPC is done
    // with the call: until then it is open, and counts against the cap.
    Finish(status);
  }
  // Brings the held-bytes count up to date with the stream.
  void Account() {
    const int64_t now = static_cast<int64_t>(stream_->held_bytes());
    streams_->Hold(now - held_);
    held_ = now;
  }
  void Release() {
    streams_->Hold(-held_);
    held_ = 0;
    stream_.reset();
  }

  ToolGateService* const typed_;
  ServerMetrics* const metrics_;
  CallStreams* const streams_;
  grpc::CallbackServerContext* const context_;
  v1::ValidateToolCallResponse* const response_;
  const std::chrono::steady_clock::time_point start_;
  bool has_slot_ = false;
  std::unique_ptr<ToolCallStream> stream_;
  int64_t held_ = 0;  // What this call counts in streams_->held_bytes().
  grpc::ByteBuffer bytes_;
  size_t input_bytes_ = 0;
  std::optional<trace::RequestTrace> trace_;
  IdleDeadline* idle_ = nullptr;  // Null: no timeout, or refused.
};

}  // namespace

void RawToolGateService::AddToolCallStream() {
  const char* name = "ValidateToolCallStream";
  methods_.push_back(name);
  paths_.push_back(
      absl::StrCat("/", v1::ToolGate::service_full_name(), "/", name));
  AddMethod(new grpc::internal::RpcServiceMethod(
      paths_.back().c_str(), grpc::internal::RpcMethod::CLIENT_STREAMING,
      nullptr));
  ToolGateService* typed = typed_;
  ServerMetrics* metrics = metrics_;
  CallStreams* streams = streams_;
  trace::Tracer* tracer = tracer_;
  MarkMethodCallback(
      static_cast<int>(methods_.size() - 1),
      new grpc::internal::CallbackClientStreamingHandler<
          grpc::ByteBuffer, v1::ValidateToolCallResponse>(
          [typed, metrics, streams, tracer](
              grpc::CallbackServerContext* context,
              v1::ValidateToolCallResponse* response) {
            return new ToolCallStreamReactor(typed, metrics, streams, tracer,
                                             context, response);
          }));
}

template <typename Request, typename Response>
void RawToolGateService::Add(
    const char* name,
    grpc::Status (ToolGateService::*method)(grpc::ServerContextBase*,
                                            const Request*, Response*),
    bool waits) {
  methods_.push_back(name);
  paths_.push_back(
      absl::StrCat("/", v1::ToolGate::service_full_name(), "/", name));
  AddMethod(new grpc::internal::RpcServiceMethod(
      paths_.back().c_str(), grpc::internal::RpcMethod::NORMAL_RPC, nullptr));
  ToolGateService* typed = typed_;
  ServerMetrics* metrics = metrics_;
  trace::Tracer* tracer = tracer_;
  const int slot = ServerMetrics::RpcSlot(name);
  const trace::StaticText span_name =
      InternSpanName(v1::ToolGate::service_full_name(), name);
  MarkMethodCallback(
      static_cast<int>(methods_.size() - 1),
      new grpc::internal::CallbackUnaryHandler<grpc::ByteBuffer, Response>(
          [typed, method, metrics, tracer, name, span_name, slot, waits](
              grpc::CallbackServerContext* context,
              const grpc::ByteBuffer* bytes,
              Response* response) -> grpc::ServerUnaryReactor* {
            // Without metrics nothing is timed: the clock costs too.
            const auto start = metrics != nullptr
                                   ? std::chrono::steady_clock::now()
                                   : std::chrono::steady_clock::time_point();
            auto handle = [typed, method, metrics, tracer, name, span_name,
                           slot, context, bytes, response, start] {
              int counted = slot;  // The gateway's calls: "mcp.stdio".
              grpc::Status status =
                  Serve<Request>(typed, method, context, *bytes, response,
                                 metrics, tracer, name, span_name, &counted);
              if (metrics != nullptr) {
                const std::chrono::duration<double> took =
                    std::chrono::steady_clock::now() - start;
                metrics->Finished(counted, status, took.count(),
                                  bytes->Length());
              }
              return status;
            };
            if (waits) return new WaitingReactor(std::move(handle));
            grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
            reactor->Finish(handle());
            return reactor;
          }));
}

RawToolGateService::RawToolGateService(ToolGateService* typed,
                                       ServerMetrics* metrics,
                                       CallStreams* streams,
                                       trace::Tracer* tracer)
    : typed_(typed),
      metrics_(metrics),
      tracer_(tracer),
      own_streams_(streams != nullptr ? nullptr
                                      : std::make_unique<CallStreams>(
                                            kDefaultMaxCallStreams)),
      streams_(streams != nullptr ? streams : own_streams_.get()) {
  using S = ToolGateService;
  // One line per RPC of the proto; raw_service_test checks none is missing.
  Add("CreateSnapshot", &S::CreateSnapshot);
  Add("GetSnapshot", &S::GetSnapshot);
  Add("ListSnapshots", &S::ListSnapshots);
  Add("DeleteSnapshot", &S::DeleteSnapshot);
  Add("OpenRun", &S::OpenRun);
  Add("CloseRun", &S::CloseRun);
  Add("ResetRun", &S::ResetRun);
  Add("ValidateToolCall", &S::ValidateToolCall);
  AddToolCallStream();
  Add("ExtractVerdict", &S::ExtractVerdict);
  Add("ValidateToolOutput", &S::ValidateToolOutput);
  Add("ListApprovals", &S::ListApprovals);
  Add("DecideApproval", &S::DecideApproval);
  Add("AwaitApproval", &S::AwaitApproval, /*waits=*/true);
}

}  // namespace server
}  // namespace toolgate
