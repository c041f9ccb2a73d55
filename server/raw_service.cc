#include "server/raw_service.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "grpcpp/impl/codegen/server_callback_handlers.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "server/convert.h"
#include "server/request_diagnosis.h"

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

template <typename Request, typename Response>
grpc::Status Serve(ToolGateService* typed,
                   grpc::Status (ToolGateService::*method)(
                       grpc::ServerContextBase*, const Request*, Response*),
                   grpc::CallbackServerContext* context,
                   const grpc::ByteBuffer& bytes, Response* response,
                   ServerMetrics* metrics) {
  Request request;
  grpc::Status status = ParseRequest(bytes, &request);
  if (!status.ok()) return status;
  status = (typed->*method)(context, &request, response);
  if (status.ok() && metrics != nullptr) metrics->Decided(request, *response);
  return status;
}

// ValidateToolCallStream: reads messages until the client half-closes,
// each one's events assembled as it arrives, then decides on gRPC's
// callback thread like the unary methods.
class ToolCallStreamReactor final
    : public grpc::ServerReadReactor<grpc::ByteBuffer> {
 public:
  ToolCallStreamReactor(ToolGateService* typed, ServerMetrics* metrics,
                        grpc::CallbackServerContext* context,
                        v1::ValidateToolCallResponse* response)
      : typed_(typed),
        metrics_(metrics),
        context_(context),
        response_(response),
        start_(metrics != nullptr ? std::chrono::steady_clock::now()
                                  : std::chrono::steady_clock::time_point()),
        stream_(typed->NewToolCallStream()) {
    StartRead(&bytes_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {  // Half-closed (or gone: the engine sees the cancellation).
      return Done(
          typed_->ValidateToolCallStream(context_, stream_.get(), response_));
    }
    input_bytes_ += bytes_.Length();
    v1::ToolCallStreamRequest message;
    grpc::Status status = ParseRequest(bytes_, &message);
    if (status.ok()) status = ToGrpc(stream_->Add(message));
    if (!status.ok()) return Done(status);
    bytes_.Clear();
    StartRead(&bytes_);
  }
  void OnDone() override { delete this; }

 private:
  void Done(const grpc::Status& status) {
    if (metrics_ != nullptr) {
      static const int slot = ServerMetrics::RpcSlot("ValidateToolCallStream");
      if (status.ok()) metrics_->DecidedStream(stream_->run_id(), *response_);
      const std::chrono::duration<double> took =
          std::chrono::steady_clock::now() - start_;
      metrics_->Finished(slot, status, took.count(), input_bytes_);
    }
    Finish(status);
  }

  ToolGateService* const typed_;
  ServerMetrics* const metrics_;
  grpc::CallbackServerContext* const context_;
  v1::ValidateToolCallResponse* const response_;
  const std::chrono::steady_clock::time_point start_;
  std::unique_ptr<ToolCallStream> stream_;
  grpc::ByteBuffer bytes_;
  size_t input_bytes_ = 0;
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
  MarkMethodCallback(
      static_cast<int>(methods_.size() - 1),
      new grpc::internal::CallbackClientStreamingHandler<
          grpc::ByteBuffer, v1::ValidateToolCallResponse>(
          [typed, metrics](grpc::CallbackServerContext* context,
                           v1::ValidateToolCallResponse* response) {
            return new ToolCallStreamReactor(typed, metrics, context, response);
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
  const int slot = ServerMetrics::RpcSlot(name);
  MarkMethodCallback(
      static_cast<int>(methods_.size() - 1),
      new grpc::internal::CallbackUnaryHandler<grpc::ByteBuffer, Response>(
          [typed, method, metrics, slot, waits](
              grpc::CallbackServerContext* context,
              const grpc::ByteBuffer* bytes,
              Response* response) -> grpc::ServerUnaryReactor* {
            // Without metrics nothing is timed: the clock costs too.
            const auto start = metrics != nullptr
                                   ? std::chrono::steady_clock::now()
                                   : std::chrono::steady_clock::time_point();
            auto handle = [typed, method, metrics, slot, context, bytes,
                           response, start] {
              grpc::Status status = Serve<Request>(typed, method, context,
                                                   *bytes, response, metrics);
              if (metrics != nullptr) {
                const std::chrono::duration<double> took =
                    std::chrono::steady_clock::now() - start;
                metrics->Finished(slot, status, took.count(), bytes->Length());
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
                                       ServerMetrics* metrics)
    : typed_(typed), metrics_(metrics) {
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
