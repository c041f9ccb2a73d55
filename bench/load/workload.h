// What the load generator sends: ValidateToolCall and ExtractVerdict
// requests built from the shared benchmark payloads, bound to the server's
// snapshots (and, in run mode, to runs opened for one worker), and the
// pre-encoded grpc.health.v1.Health/Check request the others are compared
// to.
#ifndef TOOLGATE_BENCH_LOAD_WORKLOAD_H_
#define TOOLGATE_BENCH_LOAD_WORKLOAD_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/engine/payloads.h"
#include "bench/load/options.h"
#include "envoy/service/auth/v3/external_auth.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/impl/rpc_method.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace load {

enum class Rpc {
  kValidateToolCall,
  kExtractVerdict,
  kHealthCheck,
  kEnvoyCheck
};

// The RPC every request of a mix goes to.
Rpc RpcOf(Mix mix);

// One request as a worker sends it. Only the fields of `rpc` are set.
struct Item {
  Rpc rpc = Rpc::kValidateToolCall;
  v1::ValidateToolCallRequest request;       // kValidateToolCall,
  v1::Decision expect = v1::DECISION_ALLOW;  // and the decision it must get.
  v1::ExtractVerdictRequest verdict;         // kExtractVerdict; must be PASS.
  // kHealthCheck: HealthCheckRequest{service: ""}, encoded once here so
  // that encoding is not timed per call. Must be SERVING.
  grpc::ByteBuffer health;
  // kEnvoyCheck: must be allowed (status OK with an ok_response).
  envoy::service::auth::v3::CheckRequest check;
};

// The request a payload stands for (model output and repair policy; no
// snapshot or run yet) and the decision it must get.
Item CallItem(const bench::CallPayload& p);

// ExtractVerdict of bench::VerdictEnvelope() under STRICT with the default
// result schema (the engine benchmark's BM_ExtractVerdict/strict); no
// snapshot or run yet.
Item VerdictItem();

// Health/Check for the server as a whole (service "").
Item HealthItem();

// ext_authz Check as Envoy sends it (with_request_body, pack_as_bytes) of
// the payload's MCP params wrapped in a JSON-RPC tools/call, on a route
// whose context_extensions name `snapshot` (run mode adds the run
// headers).
Item AuthzItem(const bench::CallPayload& p, const std::string& snapshot);

// The authz mix checks this payload (an MCP tools/call that is allowed).
inline constexpr char kAuthzPayload[] = "mcp_allow";

// In run mode the verdict mix opens its run on this snapshot.
inline constexpr char kVerdictRunSnapshot[] = "tickets";

// The ValidateToolCall payload names a mix sends, in the order a worker
// cycles through them. mixed interleaves allow, reject and text. Empty for
// health and verdict, which send one fixed request.
std::vector<std::string> PayloadNames(Mix mix);

// ValidateToolCall mixes: resolves each payload's snapshot by name
// (GetSnapshot{name}); in run mode opens one run per snapshot (breaker at
// its maximum, 1000) and addresses the requests to it. verdict: no
// snapshot in stateless mode (as in the engine benchmark); in run mode a
// run on kVerdictRunSnapshot whose credentials every request carries.
// health: one HealthItem(), in either mode (a health check belongs to no
// run). Every RPC has `timeout` as deadline.
absl::StatusOr<std::vector<Item>> BuildItems(v1::ToolGate::Stub& stub,
                                             const LoadgenOptions& options,
                                             std::chrono::milliseconds timeout);

// Best effort: closes the runs BuildItems opened.
void CloseRuns(v1::ToolGate::Stub& stub, const std::vector<Item>& items,
               std::chrono::milliseconds timeout);

// "OK", "UNAVAILABLE", "DEADLINE_EXCEEDED", ...
std::string StatusCodeName(grpc::StatusCode code);

// "PASS", "FAIL", "REFUSED", "CONTRACT_STOP", "UNSPECIFIED", or
// "OUTCOME_<n>" for a value outside the enum.
std::string OutcomeLabel(int outcome);

// /grpc.health.v1.Health/Check without generated stubs, through the same
// blocking unary path (and a method registered on the channel once) that
// the generated ToolGate stub uses, so that the health baseline and the
// ToolGate RPCs differ in what the server does, not in client machinery.
class HealthStub {
 public:
  explicit HealthStub(std::shared_ptr<grpc::ChannelInterface> channel);

  // Sends the pre-encoded request; on OK returns the serving status
  // (client/health_check.h values) in *status.
  grpc::Status Check(grpc::ClientContext* context,
                     const grpc::ByteBuffer& request, int* status) const;

 private:
  std::shared_ptr<grpc::ChannelInterface> channel_;
  grpc::internal::RpcMethod method_;
};

}  // namespace load
}  // namespace toolgate

#endif  // TOOLGATE_BENCH_LOAD_WORKLOAD_H_
