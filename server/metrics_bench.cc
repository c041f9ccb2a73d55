// Hot-path cost of ServerMetrics per call: what --metrics_listen adds to
// each RPC (two clock reads are measured by the A/B in
// bench/load/metrics_ab.sh; this is the recording alone). Run:
//   bazel run -c opt //server:metrics_bench
#include <chrono>

#include "benchmark/benchmark.h"
#include "server/metrics.h"

namespace toolgate {
namespace server {
namespace {

void BM_AllowedCall(benchmark::State& state) {
  ServerMetrics metrics(nullptr);
  const int slot = ServerMetrics::RpcSlot("ValidateToolCall");
  v1::ValidateToolCallRequest request;
  v1::ValidateToolCallResponse response;
  response.set_decision(v1::DECISION_ALLOW);
  response.add_calls()->set_name("update_ticket");
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    metrics.Decided(request, response);
    const std::chrono::duration<double> took =
        std::chrono::steady_clock::now() - start;
    metrics.Finished(slot, grpc::Status::OK, took.count(), 180);
  }
}
BENCHMARK(BM_AllowedCall)->Threads(1)->Threads(2);

void BM_RejectedCallTwoViolations(benchmark::State& state) {
  ServerMetrics metrics(nullptr);
  const int slot = ServerMetrics::RpcSlot("ValidateToolCall");
  v1::ValidateToolCallRequest request;
  request.set_run_id("run_1");
  v1::ValidateToolCallResponse response;
  response.set_decision(v1::DECISION_REJECT);
  response.set_attempt(1);
  response.set_attempts_left(2);
  response.add_violations()->set_code("invalid_arguments");
  response.add_violations()->set_code("unknown_tool");
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    metrics.Decided(request, response);
    const std::chrono::duration<double> took =
        std::chrono::steady_clock::now() - start;
    metrics.Finished(slot, grpc::Status::OK, took.count(), 180);
  }
}
BENCHMARK(BM_RejectedCallTwoViolations)->Threads(1)->Threads(2);

}  // namespace
}  // namespace server
}  // namespace toolgate
