#include "server/raw_service.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "grpcpp/support/method_handler.h"
#include "grpcpp/support/proto_buffer_reader.h"
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

template <typename Request, typename Response>
void RawToolGateService::Add(
    const char* name,
    grpc::Status (v1::ToolGate::Service::*method)(grpc::ServerContext*,
                                                  const Request*, Response*)) {
  methods_.push_back(name);
  paths_.push_back(
      absl::StrCat("/", v1::ToolGate::service_full_name(), "/", name));
  v1::ToolGate::Service* typed = typed_;
  AddMethod(new grpc::internal::RpcServiceMethod(
      paths_.back().c_str(), grpc::internal::RpcMethod::NORMAL_RPC,
      new grpc::internal::RpcMethodHandler<RawToolGateService, grpc::ByteBuffer,
                                           Response>(
          [typed, method](RawToolGateService*, grpc::ServerContext* context,
                          const grpc::ByteBuffer* bytes, Response* response) {
            Request request;
            if (grpc::Status parsed = ParseRequest(*bytes, &request);
                !parsed.ok()) {
              return parsed;
            }
            return (typed->*method)(context, &request, response);
          },
          this)));
}

RawToolGateService::RawToolGateService(v1::ToolGate::Service* typed)
    : typed_(typed) {
  using S = v1::ToolGate::Service;
  // One line per RPC of the proto; raw_service_test checks none is missing.
  Add("CreateSnapshot", &S::CreateSnapshot);
  Add("GetSnapshot", &S::GetSnapshot);
  Add("ListSnapshots", &S::ListSnapshots);
  Add("OpenRun", &S::OpenRun);
  Add("CloseRun", &S::CloseRun);
  Add("ResetRun", &S::ResetRun);
  Add("ValidateToolCall", &S::ValidateToolCall);
  Add("ExtractVerdict", &S::ExtractVerdict);
  Add("ValidateToolOutput", &S::ValidateToolOutput);
}

}  // namespace server
}  // namespace toolgate
