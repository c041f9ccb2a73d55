// Serves toolgate.v1.ToolGate with requests parsed here rather than by
// gRPC, so that a request that does not parse is INVALID_ARGUMENT naming
// the field at fault (DiagnoseUnparsableRequest) instead of gRPC's
// INTERNAL with empty details, for every RPC and every field at once.
//
// Why this way (gRPC 1.51, protobuf 3.21):
//  - Specialising grpc::SerializationTraits for our request types has no
//    effect on the server: generated handlers deserialize through the base
//    type (RpcMethodHandler<..., protobuf::MessageLite, MessageLite>),
//    whose traits libgrpc++ instantiates itself; specialising those would
//    change every service in the process and break the one-definition rule.
//  - Server interceptors see a request only once it has parsed.
//  - Turning `string` fields into `bytes` would change the public contract
//    for every client, and lose protobuf's check where it is right.
// So each method is registered here, as generated code registers them, but
// with grpc::ByteBuffer as the request type; the bytes are parsed here and
// the typed service is called.
//
// Every method is a unary call on gRPC's callback API: the (bounded,
// CPU-only) decision runs on the gRPC thread that read the request, with
// no hand-off to another thread (a one-message client stream, used before
// for the drain, cost ~2.4 more futex calls and 0.6 more poller wake-ups
// per call, and ~1.3x the latency of grpc.health.v1 at one call in
// flight). The drain does not need it: gRPC 1.51 cancels at Shutdown the
// calls whose request it has not fully read, and the drain notice
// (server/main.cc, --drain_notice_ms) keeps accepting and reading for a
// while after SIGTERM so that a call sent before the signal is read
// before Shutdown. A method that waits (AwaitApproval) runs on a thread of
// its own, at most kMaxWaitingCalls at a time (RESOURCE_EXHAUSTED beyond),
// so waiting never holds gRPC's threads.
//
// The exception is ValidateToolCallStream, a client stream by contract: a
// reactor reads it message by message, assembling events as they arrive,
// and decides on the callback thread at half-close, or as soon as the
// decision is fixed (the stream refused: over a limit, malformed, a
// provider error), without reading on: the answer and the end of the call
// come before the client half-closes. At most CallStreams::max_open() such
// calls are open at once (RESOURCE_EXHAUSTED beyond, before any message
// is read). A stream still open at shutdown is cancelled when the grace
// period ends (no decision).
//
// Thread-safety: as the typed service it wraps.
#ifndef TOOLGATE_SERVER_RAW_SERVICE_H_
#define TOOLGATE_SERVER_RAW_SERVICE_H_

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "grpcpp/impl/service_type.h"
#include "core/trace/tracer.h"
#include "server/call_streams.h"
#include "server/metrics.h"
#include "server/service.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace server {

// Parses `bytes` into `request`; INVALID_ARGUMENT with a diagnosis when
// they do not parse.
grpc::Status ParseRequest(const grpc::ByteBuffer& bytes,
                          google::protobuf::Message* request);

// Calls of waiting methods (AwaitApproval) in progress at once.
inline constexpr int kMaxWaitingCalls = 256;

class RawToolGateService final : public grpc::Service {
 public:
  // Forwards every RPC to `typed`, which must outlive this service, and
  // reports each call to `metrics` (may be null: no metrics, nothing timed;
  // else it must outlive the service too). `streams` caps and counts the
  // open ValidateToolCallStream calls (must outlive the service; null: the
  // service's own, with kDefaultMaxCallStreams).
  // `tracer` (may be null: tracing off) gets a server span per call.
  explicit RawToolGateService(ToolGateService* typed,
                              ServerMetrics* metrics = nullptr,
                              CallStreams* streams = nullptr,
                              trace::Tracer* tracer = nullptr);

  // The RPC names registered ("CreateSnapshot", ...), in proto order.
  const std::vector<std::string>& methods() const { return methods_; }

 private:
  // `waits`: the method blocks (see above) and gets a thread of its own.
  template <typename Request, typename Response>
  void Add(const char* name,
           grpc::Status (ToolGateService::*method)(grpc::ServerContextBase*,
                                                   const Request*, Response*),
           bool waits = false);
  // ValidateToolCallStream, the one method that reads many messages.
  void AddToolCallStream();

  ToolGateService* const typed_;
  ServerMetrics* const metrics_;
  trace::Tracer* const tracer_;
  std::unique_ptr<CallStreams> own_streams_;  // When none was given.
  CallStreams* const streams_;
  std::vector<std::string> methods_;
  // gRPC keeps a pointer to each method's path: a deque never moves them.
  std::deque<std::string> paths_;
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_RAW_SERVICE_H_
