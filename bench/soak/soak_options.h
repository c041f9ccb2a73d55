// Flags of the toolgate soak driver (//bench/soak:soak).
//
// Like the load generator, the soak only talks to this machine: --addr
// must pass load::CheckLoopbackAddress (127.0.0.0/8, localhost, [::1],
// unix:). It watches the server's memory through /proc/<pid>, so the
// server must run here anyway.
#ifndef TOOLGATE_BENCH_SOAK_SOAK_OPTIONS_H_
#define TOOLGATE_BENCH_SOAK_SOAK_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace toolgate {
namespace soak {

inline constexpr int64_t kMaxCalls = 1000000000;
inline constexpr int kMaxTimeLimitSeconds = 24 * 3600;
inline constexpr int kMaxWorkers = 64;
inline constexpr int kMaxCallsPerRun = 100000;

struct SoakOptions {
  std::string addr;               // Required; loopback only.
  int server_pid = 0;             // Required; whose VmRSS is sampled.
  int64_t calls = 1000000;        // Checked calls to make, 1..kMaxCalls.
  int time_limit_seconds = 3600;  // Stopping on the clock is a failure.
  int workers = 4;                // Closed-loop threads, 1..kMaxWorkers.
  int calls_per_run = 50;         // K: calls between OpenRun and CloseRun.
  double warmup_fraction = 0.1;   // RSS baseline after this share of calls.
  double max_rss_growth_percent = 10;  // From the baseline to the end.
  int rpc_timeout_ms = 5000;           // Per-RPC deadline; expiry is an error.
  // Stop early after this many errors: the soak has failed by then, and a
  // dead server would otherwise turn the rest into fast UNAVAILABLEs.
  int64_t max_errors = 100;
  std::string label;  // Free text copied into the JSON line.
};

// Parses "--name=value" or "--name value". Unknown flags, missing required
// flags, out-of-range values and non-loopback addresses are
// INVALID_ARGUMENT.
absl::StatusOr<SoakOptions> ParseSoakFlags(
    const std::vector<std::string>& args);

std::string SoakUsage();

}  // namespace soak
}  // namespace toolgate

#endif  // TOOLGATE_BENCH_SOAK_SOAK_OPTIONS_H_
