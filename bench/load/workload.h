// What the load generator sends: ValidateToolCall requests built from the
// shared benchmark payloads, bound to the server's snapshots (and, in run
// mode, to runs opened for one worker).
#ifndef TOOLGATE_BENCH_LOAD_WORKLOAD_H_
#define TOOLGATE_BENCH_LOAD_WORKLOAD_H_

#include <chrono>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/engine/payloads.h"
#include "bench/load/options.h"
#include "grpcpp/grpcpp.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace load {

struct Item {
  v1::ValidateToolCallRequest request;
  v1::Decision expect = v1::DECISION_ALLOW;
};

// The request a payload stands for (model output and repair policy; no
// snapshot or run yet) and the decision it must get.
Item CallItem(const bench::CallPayload& p);

// The payload names a mix sends, in the order a worker cycles through
// them. mixed interleaves allow, reject and text.
std::vector<std::string> PayloadNames(Mix mix);

// Resolves each payload's snapshot by name (GetSnapshot{name}); in run
// mode opens one run per snapshot (breaker at its maximum, 1000) and
// addresses the requests to it. Every RPC has `timeout` as deadline.
absl::StatusOr<std::vector<Item>> BuildItems(v1::ToolGate::Stub& stub,
                                             const LoadgenOptions& options,
                                             std::chrono::milliseconds timeout);

// Best effort: closes the runs BuildItems opened.
void CloseRuns(v1::ToolGate::Stub& stub, const std::vector<Item>& items,
               std::chrono::milliseconds timeout);

// "OK", "UNAVAILABLE", "DEADLINE_EXCEEDED", ...
std::string StatusCodeName(grpc::StatusCode code);

}  // namespace load
}  // namespace toolgate

#endif  // TOOLGATE_BENCH_LOAD_WORKLOAD_H_
