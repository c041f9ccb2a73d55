// loadgen: a closed-loop gRPC load generator for a toolgate sidecar on this
// machine. Each of --concurrency workers sends the requests of --mix
// (ValidateToolCall or ExtractVerdict with the payloads of
// bench/engine/payloads.h, or grpc.health.v1.Health/Check as the
// baseline), waits for the answer, records its latency and sends the next,
// until --duration_seconds (or --max_requests) is reached. Prints one
// human line and one JSON line (last) on stdout.
//
// Closed loop means latency here is service time at that concurrency; it
// does not show the queueing an open-loop (fixed arrival rate) client
// would see once the server saturates. See bench/README.md.
//
// Exit status: 0 when every request succeeded, 1 when some failed, 2 when
// the run could not start (bad flags, no server).
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/engine/payloads.h"
#include "bench/load/options.h"
#include "bench/load/stats.h"
#include "bench/load/workload.h"
#include "client/health_check.h"
#include "grpcpp/grpcpp.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace load {
namespace {

using Clock = std::chrono::steady_clock;

// gRPC deadlines are wall-clock (system_clock) time points; latencies are
// measured on the monotonic clock.
std::chrono::system_clock::time_point Deadline(
    std::chrono::milliseconds timeout) {
  return std::chrono::system_clock::now() + timeout;
}

struct Shared {
  v1::ToolGate::Stub* stub = nullptr;
  const HealthStub* health = nullptr;
  envoy::service::auth::v3::Authorization::Stub* authz = nullptr;
  Clock::time_point stop_at;
  int64_t max_requests = 0;  // 0: unbounded.
  std::chrono::milliseconds rpc_timeout{5000};
  std::atomic<int64_t> issued{0};
};

struct WorkerStats {
  std::vector<int64_t> latencies_ns;
  int64_t errors = 0;
  int64_t unexpected = 0;
  int64_t run_resets = 0;
  DecisionCounts decisions{};
  std::map<std::string, int64_t> outcomes;  // Verdict and health answers.
  std::map<std::string, int64_t> error_codes;
  std::string first_error;
};

void RecordError(const std::string& code, const std::string& message,
                 WorkerStats* stats) {
  ++stats->errors;
  ++stats->error_codes[code];
  if (stats->first_error.empty()) stats->first_error = code + ": " + message;
}

// A run whose breaker is about to open is reset (untimed), so that a
// reject-heavy mix keeps measuring REJECT rather than STOP.
void MaybeResetRun(Shared& shared, const Item& item,
                   const v1::ValidateToolCallResponse& resp,
                   WorkerStats* stats) {
  if (item.request.run_id().empty() || resp.decision() != v1::DECISION_REJECT ||
      resp.attempts_left() > 0) {
    return;
  }
  grpc::ClientContext ctx;
  ctx.set_deadline(Deadline(shared.rpc_timeout));
  v1::ResetRunRequest req;
  req.set_run_id(item.request.run_id());
  req.set_run_token(item.request.run_token());
  v1::ResetRunResponse out;
  grpc::Status s = shared.stub->ResetRun(&ctx, req, &out);
  if (s.ok()) {
    ++stats->run_resets;
  } else {
    RecordError(StatusCodeName(s.error_code()), s.error_message(), stats);
  }
}

// Times one RPC: `call` runs under a fresh context with the per-RPC
// deadline; its latency is recorded whatever the outcome.
template <typename Call>
grpc::Status Timed(Shared& shared, WorkerStats* stats, Call call) {
  grpc::ClientContext ctx;
  ctx.set_deadline(Deadline(shared.rpc_timeout));
  const Clock::time_point start = Clock::now();
  grpc::Status s = call(&ctx);
  stats->latencies_ns.push_back(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start)
          .count());
  if (!s.ok()) {
    RecordError(StatusCodeName(s.error_code()), s.error_message(), stats);
  }
  return s;
}

// A worker's response messages, cleared and reused for every request (as
// before the verdict and health mixes existed), so that their allocations
// are not re-made per call.
struct Responses {
  v1::ValidateToolCallResponse call;
  v1::ExtractVerdictResponse verdict;
  envoy::service::auth::v3::CheckResponse check;
};

void SendCall(Shared& shared, const Item& item, WorkerStats* stats,
              v1::ValidateToolCallResponse* resp) {
  resp->Clear();
  grpc::Status s = Timed(shared, stats, [&](grpc::ClientContext* ctx) {
    return shared.stub->ValidateToolCall(ctx, item.request, resp);
  });
  if (!s.ok()) return;
  const int d = resp->decision();
  ++stats->decisions[d >= 0 && d < kDecisionCount ? d : 0];
  if (d == v1::DECISION_UNSPECIFIED) {
    RecordError("DECISION_UNSPECIFIED", "server sent no decision", stats);
  } else if (d != item.expect) {
    ++stats->unexpected;
  }
  MaybeResetRun(shared, item, *resp, stats);
}

// Anything but PASS is an error: the envelope always holds a valid result.
void SendVerdict(Shared& shared, const Item& item, WorkerStats* stats,
                 v1::ExtractVerdictResponse* resp) {
  resp->Clear();
  grpc::Status s = Timed(shared, stats, [&](grpc::ClientContext* ctx) {
    return shared.stub->ExtractVerdict(ctx, item.verdict, resp);
  });
  if (!s.ok()) return;
  const std::string label = OutcomeLabel(resp->outcome());
  ++stats->outcomes[label];
  if (resp->outcome() != v1::OUTCOME_PASS) {
    RecordError(label, "verdict is not PASS: " + resp->stop_reason(), stats);
  }
}

// Anything but SERVING is an error.
void SendHealth(Shared& shared, const Item& item, WorkerStats* stats) {
  int status = client::kHealthUnknown;
  grpc::Status s = Timed(shared, stats, [&](grpc::ClientContext* ctx) {
    return shared.health->Check(ctx, item.health, &status);
  });
  if (!s.ok()) return;
  const std::string label = client::HealthStatusName(status);
  ++stats->outcomes[label];
  if (status != client::kHealthServing) {
    RecordError(label, "health status is not SERVING", stats);
  }
}

// Anything but an allow (status OK and an ok_response) is an error.
void SendCheck(Shared& shared, const Item& item, WorkerStats* stats,
               envoy::service::auth::v3::CheckResponse* resp) {
  resp->Clear();
  grpc::Status s = Timed(shared, stats, [&](grpc::ClientContext* ctx) {
    return shared.authz->Check(ctx, item.check, resp);
  });
  if (!s.ok()) return;
  const bool allowed = resp->status().code() == 0 && resp->has_ok_response();
  ++stats->outcomes[allowed ? "OK" : "DENIED"];
  if (!allowed) {
    RecordError("DENIED", "ext_authz denied: " + resp->denied_response().body(),
                stats);
  }
}

void Work(Shared& shared, const std::vector<Item>& items, size_t first,
          WorkerStats* stats) {
  Responses resp;
  for (size_t i = first; Clock::now() < shared.stop_at; ++i) {
    if (shared.max_requests > 0 &&
        shared.issued.fetch_add(1) >= shared.max_requests) {
      break;
    }
    const Item& item = items[i % items.size()];
    switch (item.rpc) {
      case Rpc::kValidateToolCall:
        SendCall(shared, item, stats, &resp.call);
        break;
      case Rpc::kExtractVerdict:
        SendVerdict(shared, item, stats, &resp.verdict);
        break;
      case Rpc::kHealthCheck:
        SendHealth(shared, item, stats);
        break;
      case Rpc::kEnvoyCheck:
        SendCheck(shared, item, stats, &resp.check);
        break;
    }
  }
}

LoadReport Merge(const LoadgenOptions& options, double elapsed,
                 std::vector<WorkerStats>& workers) {
  LoadReport report;
  report.options = options;
  report.elapsed_seconds = elapsed;
  std::vector<int64_t> all;
  for (WorkerStats& w : workers) {
    all.insert(all.end(), w.latencies_ns.begin(), w.latencies_ns.end());
    w.latencies_ns.clear();
    report.errors += w.errors;
    report.unexpected += w.unexpected;
    report.run_resets += w.run_resets;
    for (int d = 0; d < kDecisionCount; ++d) {
      report.decisions[d] += w.decisions[d];
    }
    for (const auto& [label, n] : w.outcomes) report.outcomes[label] += n;
    for (const auto& [code, n] : w.error_codes) report.error_codes[code] += n;
    if (!w.first_error.empty()) {
      std::cerr << "loadgen: first error: " << w.first_error << "\n";
    }
  }
  report.requests = static_cast<int64_t>(all.size());
  report.latency = Summarize(std::move(all));
  return report;
}

// Insurance on top of the per-RPC deadlines: the process ends even if
// something unforeseen blocks (a hung connect, a stuck thread).
void StartWatchdog(const LoadgenOptions& options) {
  const auto limit = std::chrono::seconds(options.duration_seconds + 30) +
                     std::chrono::milliseconds(2 * options.rpc_timeout_ms);
  std::thread([limit] {
    std::this_thread::sleep_for(limit);
    std::cerr << "loadgen: watchdog: run exceeded its time limit, exiting\n";
    std::_Exit(3);
  }).detach();
}

// User + system CPU seconds of this whole process (gRPC's threads too).
double ProcessCpuSeconds() {
  struct rusage u {};
  getrusage(RUSAGE_SELF, &u);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(u.ru_utime) + seconds(u.ru_stime);
}

struct Window {
  double elapsed_seconds = 0;
  double cpu_seconds = 0;
};

// Runs the workers from one common start; returns the elapsed wall time
// and the CPU this process used meanwhile.
Window RunWorkers(Shared& shared, const LoadgenOptions& options,
                  const std::vector<std::vector<Item>>& items,
                  std::vector<WorkerStats>* stats) {
  std::vector<std::thread> threads;
  const double cpu_start = ProcessCpuSeconds();
  const Clock::time_point start = Clock::now();
  shared.stop_at = start + std::chrono::seconds(options.duration_seconds);
  for (int w = 0; w < options.concurrency; ++w) {
    // Workers start at different payloads so that a mix is spread evenly
    // even in short runs.
    threads.emplace_back(Work, std::ref(shared), std::cref(items[w]),
                         static_cast<size_t>(w), &(*stats)[w]);
  }
  for (std::thread& t : threads) t.join();
  return Window{std::chrono::duration<double>(Clock::now() - start).count(),
                ProcessCpuSeconds() - cpu_start};
}

int Main(const LoadgenOptions& options) {
  StartWatchdog(options);
  auto channel =
      grpc::CreateChannel(options.addr, grpc::InsecureChannelCredentials());
  if (!channel->WaitForConnected(Deadline(std::chrono::seconds(5)))) {
    std::cerr << "loadgen: cannot connect to " << options.addr << "\n";
    return 2;
  }
  auto stub = v1::ToolGate::NewStub(channel);
  const HealthStub health(channel);
  Shared shared;
  shared.stub = stub.get();
  shared.health = &health;
  auto authz = envoy::service::auth::v3::Authorization::NewStub(channel);
  shared.authz = authz.get();
  shared.max_requests = options.max_requests;
  shared.rpc_timeout = std::chrono::milliseconds(options.rpc_timeout_ms);
  // Snapshot lookups and OpenRun happen before the clock starts.
  std::vector<std::vector<Item>> items;
  for (int w = 0; w < options.concurrency; ++w) {
    auto built = BuildItems(*stub, options, shared.rpc_timeout);
    if (!built.ok()) {
      std::cerr << "loadgen: " << built.status().message() << "\n";
      return 2;
    }
    items.push_back(*std::move(built));
  }
  std::vector<WorkerStats> stats(options.concurrency);
  const Window window = RunWorkers(shared, options, items, &stats);
  for (const std::vector<Item>& worker_items : items) {
    CloseRuns(*stub, worker_items, shared.rpc_timeout);
  }
  LoadReport report = Merge(options, window.elapsed_seconds, stats);
  report.client_cpu_seconds = window.cpu_seconds;
  std::cout << HumanLine(report) << "\n" << JsonLine(report) << std::endl;
  return report.errors == 0 && report.requests > 0 ? 0 : 1;
}

}  // namespace
}  // namespace load
}  // namespace toolgate

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << toolgate::load::LoadgenUsage();
    return 0;
  }
  auto options = toolgate::load::ParseLoadgenFlags(args);
  if (!options.ok()) {
    std::cerr << "loadgen: " << options.status().message() << "\n"
              << toolgate::load::LoadgenUsage();
    return 2;
  }
  return toolgate::load::Main(*options);
}
