// Results of a load run: latency percentiles from every recorded request,
// counts, and their human and JSON renderings.
#ifndef TOOLGATE_BENCH_LOAD_STATS_H_
#define TOOLGATE_BENCH_LOAD_STATS_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/load/options.h"

namespace toolgate {
namespace load {

// Nearest-rank percentile (q in [0, 1]) of an ascending-sorted sample: the
// smallest value with at least q of the sample at or below it. No
// interpolation, so every reported value is one that was measured. 0 for
// an empty sample.
int64_t Percentile(const std::vector<int64_t>& sorted, double q);

struct LatencySummary {
  int64_t count = 0;
  int64_t p50_ns = 0;
  int64_t p90_ns = 0;
  int64_t p99_ns = 0;
  int64_t max_ns = 0;
  double mean_ns = 0;
};

// Sorts `samples_ns` (hence by value) and summarizes it.
LatencySummary Summarize(std::vector<int64_t> samples_ns);

// Indexed by the wire value of toolgate.v1.Decision (0 = UNSPECIFIED).
inline constexpr int kDecisionCount = 5;
using DecisionCounts = std::array<int64_t, kDecisionCount>;
const char* DecisionLabel(int wire_value);

struct LoadReport {
  LoadgenOptions options;
  double elapsed_seconds = 0;
  int64_t requests = 0;      // Completed RPCs, failed ones included.
  // Non-OK status, an UNSPECIFIED decision, a verdict other than PASS
  // (verdict mix) or a health status other than SERVING (health mix).
  int64_t errors = 0;
  int64_t unexpected = 0;    // OK, but not the decision the payload expects.
  int64_t run_resets = 0;    // ResetRun calls (run mode, untimed).
  DecisionCounts decisions{};  // ValidateToolCall mixes.
  // verdict mix: outcome ("PASS", "FAIL", ...); health mix: serving status
  // ("SERVING", "NOT_SERVING", ...) -> count. Empty for the other mixes.
  std::map<std::string, int64_t> outcomes;
  std::map<std::string, int64_t> error_codes;  // gRPC code name -> count.
  LatencySummary latency;    // Over all completed RPCs.
  // CPU (user + system) this process used during the measured window: on
  // a small machine the client's share is capacity the server did not get.
  double client_cpu_seconds = 0;
  double qps() const {
    return elapsed_seconds > 0 ? requests / elapsed_seconds : 0;
  }
};

// "mode=stateless mix=allow c=4 requests=... qps=... p50=...us ...".
std::string HumanLine(const LoadReport& report);
// One line of JSON, no trailing newline.
std::string JsonLine(const LoadReport& report);

}  // namespace load
}  // namespace toolgate

#endif  // TOOLGATE_BENCH_LOAD_STATS_H_
