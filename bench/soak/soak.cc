// soak: a long, checked, mixed workload against a toolgate sidecar on this
// machine, watching the server's memory.
//
// --workers threads each repeat rounds: (in every other round) open one run
// per snapshot, make --calls_per_run checked calls (ValidateToolCall ALLOW,
// REJECT and text; ExtractVerdict; ValidateToolOutput), close the runs and
// check that a call to a closed run is NOT_FOUND. Every answer is compared
// with what its payload must get (bench/soak/plan.h): a different answer
// is an error, and so is every non-OK status. The server's VmRSS is
// sampled before the first call, after --warmup_fraction of the calls,
// every tenth of the calls and at the end.
//
// Prints progress on stderr and one JSON line on stdout. Exit status: 0
// when the soak passed, 1 when it failed (errors, RSS growth after warm-up
// above --max_rss_growth_percent, stopped by the time limit), 2 when it
// could not start, 3 when the watchdog ended it.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "bench/load/workload.h"
#include "bench/soak/plan.h"
#include "bench/soak/report.h"
#include "bench/soak/soak_options.h"
#include "bench/soak/worker.h"
#include "grpcpp/grpcpp.h"

namespace toolgate {
namespace soak {
namespace {

absl::StatusOr<std::map<std::string, std::string>> SnapshotIds(
    v1::ToolGate::Stub& stub, const std::vector<Step>& cycle,
    std::chrono::milliseconds timeout) {
  std::map<std::string, std::string> ids;
  for (const std::string& name : SnapshotNames(cycle)) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + timeout);
    v1::GetSnapshotRequest req;
    req.set_name(name);
    v1::GetSnapshotResponse resp;
    grpc::Status s = stub.GetSnapshot(&ctx, req, &resp);
    if (!s.ok()) {
      return absl::UnavailableError(absl::StrCat(
          "GetSnapshot{", name, "}: ", load::StatusCodeName(s.error_code()),
          " ", s.error_message()));
    }
    ids[name] = resp.snapshot_id();
  }
  return ids;
}

// Insurance on top of the per-RPC deadlines and the time limit: the
// process ends even if something unforeseen blocks.
void StartWatchdog(const SoakOptions& options) {
  const auto limit = std::chrono::seconds(options.time_limit_seconds + 60) +
                     std::chrono::milliseconds(4 * options.rpc_timeout_ms);
  std::thread([limit] {
    std::this_thread::sleep_for(limit);
    std::cerr << "soak: watchdog: run exceeded its time limit, exiting\n";
    std::_Exit(3);
  }).detach();
}

void RunWorkers(Shared& shared, const std::vector<Step>& cycle,
                SoakReport* report) {
  std::vector<WorkerStats> stats(shared.options->workers, WorkerStats(&shared));
  std::vector<std::thread> threads;
  const auto start = Clock::now();
  shared.stop_at =
      start + std::chrono::seconds(shared.options->time_limit_seconds);
  for (int w = 0; w < shared.options->workers; ++w) {
    threads.emplace_back(Work, std::ref(shared), cycle, w, &stats[w]);
  }
  for (std::thread& t : threads) t.join();
  report->elapsed_seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  for (const WorkerStats& w : stats) MergeInto(w, report);
}

int Main(const SoakOptions& options) {
  StartWatchdog(options);
  SoakReport report;
  report.options = options;
  auto first = SampleProcess(options.server_pid);
  if (!first.ok()) {
    std::cerr << "soak: server pid " << options.server_pid << ": "
              << first.status().message() << "\n";
    return 2;
  }
  report.start = RssPoint{0, *first};
  auto channel =
      grpc::CreateChannel(options.addr, grpc::InsecureChannelCredentials());
  if (!channel->WaitForConnected(std::chrono::system_clock::now() +
                                 std::chrono::seconds(5))) {
    std::cerr << "soak: cannot connect to " << options.addr << "\n";
    return 2;
  }
  auto stub = v1::ToolGate::NewStub(channel);
  const std::vector<Step> cycle = BuildCycle();
  Shared shared(options, stub.get());
  auto ids = SnapshotIds(*stub, cycle, shared.rpc_timeout);
  if (!ids.ok()) {
    std::cerr << "soak: " << ids.status().message() << "\n";
    return 2;
  }
  shared.snapshot_ids = *std::move(ids);
  RunWorkers(shared, cycle, &report);
  shared.TakeSamples(&report);
  const std::vector<std::string> failures = Failures(report);
  std::cout << JsonLine(report) << std::endl;
  for (const std::string& f : failures)
    std::cerr << "soak: FAIL: " << f << "\n";
  if (failures.empty()) std::cerr << "soak: passed\n";
  return failures.empty() ? 0 : 1;
}

}  // namespace
}  // namespace soak
}  // namespace toolgate

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << toolgate::soak::SoakUsage();
    return 0;
  }
  auto options = toolgate::soak::ParseSoakFlags(args);
  if (!options.ok()) {
    std::cerr << "soak: " << options.status().message() << "\n"
              << toolgate::soak::SoakUsage();
    return 2;
  }
  return toolgate::soak::Main(*options);
}
