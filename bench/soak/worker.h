// The soak's worker threads: rounds of checked calls, runs opened and
// closed, and the server's RSS sampled as the calls complete.
#ifndef TOOLGATE_BENCH_SOAK_WORKER_H_
#define TOOLGATE_BENCH_SOAK_WORKER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "bench/soak/plan.h"
#include "bench/soak/report.h"
#include "bench/soak/soak_options.h"
#include "toolgate/v1/toolgate.grpc.pb.h"

namespace toolgate {
namespace soak {

using Clock = std::chrono::steady_clock;

// State all workers share: where to send, the call budget, and the RSS
// samples taken as calls complete.
class Shared {
 public:
  Shared(const SoakOptions& options, v1::ToolGate::Stub* stub);

  // False once the calls are all issued, the time limit has passed or
  // max_errors errors were counted.
  bool TakeTicket();
  void CountError() { errors_.fetch_add(1); }
  // Counts a completed call; samples RSS at warm-up and every tenth.
  void CallDone();
  // Adds the samples (and one taken now, the end) to `report`.
  void TakeSamples(SoakReport* report);

  const SoakOptions* const options;
  v1::ToolGate::Stub* const stub;
  const std::chrono::milliseconds rpc_timeout;
  std::map<std::string, std::string> snapshot_ids;  // name -> id
  Clock::time_point stop_at;

 private:
  void Sample(int64_t calls_done);

  const int64_t warmup_at_;
  const int64_t every_;
  std::atomic<int64_t> issued_{0};
  std::atomic<int64_t> done_{0};
  std::atomic<int64_t> errors_{0};
  std::atomic<bool> time_up_{false};
  std::atomic<bool> too_many_errors_{false};
  absl::Mutex mu_;
  std::optional<RssPoint> after_warmup_ ABSL_GUARDED_BY(mu_);
  std::vector<RssPoint> samples_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int64_t> sample_errors_ ABSL_GUARDED_BY(mu_);
};

struct WorkerStats {
  explicit WorkerStats(Shared* shared) : shared(shared) {}

  Shared* shared;
  int64_t calls = 0;
  std::map<std::string, int64_t> calls_by_kind;
  int64_t runs_opened = 0;
  int64_t runs_closed = 0;
  int64_t closed_run_probes = 0;
  std::map<std::string, int64_t> errors;  // kind -> count
  std::vector<std::string> first_errors;  // A few, with details.

  void Error(const std::string& kind, const std::string& detail);
};

// Worker `index`'s loop: rounds until Shared::TakeTicket() says stop.
void Work(Shared& shared, std::vector<Step> cycle, int index,
          WorkerStats* stats);

void MergeInto(const WorkerStats& stats, SoakReport* report);

}  // namespace soak
}  // namespace toolgate

#endif  // TOOLGATE_BENCH_SOAK_WORKER_H_
