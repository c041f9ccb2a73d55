#include "client/health_check.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "client/toolgate_client.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"
#include "grpcpp/generic/generic_stub.h"

namespace toolgate {
namespace client {
namespace {

using google::protobuf::internal::WireFormatLite;

constexpr char kCheckMethod[] = "/grpc.health.v1.Health/Check";
constexpr int kStatusField = 1;
constexpr int kServiceField = 1;

grpc::ByteBuffer ToByteBuffer(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

absl::StatusOr<std::string> FromByteBuffer(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  if (!buffer.Dump(&slices).ok()) {
    return absl::InternalError("cannot read health check response bytes");
  }
  std::string bytes;
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return bytes;
}

}  // namespace

std::string HealthStatusName(int status) {
  switch (status) {
    case kHealthUnknown: return "UNKNOWN";
    case kHealthServing: return "SERVING";
    case kHealthNotServing: return "NOT_SERVING";
    case kHealthServiceUnknown: return "SERVICE_UNKNOWN";
  }
  return absl::StrCat("UNRECOGNIZED_", status);
}

std::string EncodeHealthCheckRequest(absl::string_view service) {
  std::string bytes;
  if (service.empty()) return bytes;  // proto3 omits the default value.
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream out(&stream);
  out.WriteTag(WireFormatLite::MakeTag(
      kServiceField, WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
  out.WriteVarint32(static_cast<uint32_t>(service.size()));
  out.WriteRaw(service.data(), static_cast<int>(service.size()));
  out.Trim();
  return bytes;
}

absl::StatusOr<int> DecodeHealthCheckResponse(absl::string_view bytes) {
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  int status = kHealthUnknown;
  while (true) {
    const uint32_t tag = in.ReadTag();
    if (tag == 0) {
      if (in.ConsumedEntireMessage()) return status;
      return absl::InvalidArgumentError("malformed HealthCheckResponse");
    }
    if (WireFormatLite::GetTagFieldNumber(tag) != kStatusField) {
      if (!WireFormatLite::SkipField(&in, tag)) {
        return absl::InvalidArgumentError("malformed HealthCheckResponse");
      }
      continue;
    }
    uint32_t value = 0;
    const bool is_varint = WireFormatLite::GetTagWireType(tag) ==
                           WireFormatLite::WIRETYPE_VARINT;
    if (!is_varint || !in.ReadVarint32(&value)) {
      return absl::InvalidArgumentError(
          "HealthCheckResponse.status is not a varint");
    }
    status = static_cast<int>(value);
  }
}

absl::StatusOr<int> CheckHealth(std::shared_ptr<grpc::ChannelInterface> channel,
                                absl::string_view service,
                                absl::Duration deadline) {
  grpc::GenericStub stub(std::move(channel));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
  const grpc::ByteBuffer request =
      ToByteBuffer(EncodeHealthCheckRequest(service));
  grpc::ByteBuffer response;
  grpc::Status rpc_status;
  absl::Notification done;
  stub.UnaryCall(&context, kCheckMethod, grpc::StubOptions(), &request,
                 &response, [&rpc_status, &done](grpc::Status status) {
                   rpc_status = std::move(status);
                   done.Notify();
                 });
  // The context deadline bounds this wait.
  done.WaitForNotification();
  if (!rpc_status.ok()) return FromGrpcStatus(rpc_status);
  absl::StatusOr<std::string> bytes = FromByteBuffer(response);
  if (!bytes.ok()) return bytes.status();
  return DecodeHealthCheckResponse(*bytes);
}

}  // namespace client
}  // namespace toolgate
