// The soak's result: counts, the server's RSS over the run, the pass/fail
// rules and the JSON line.
#ifndef TOOLGATE_BENCH_SOAK_REPORT_H_
#define TOOLGATE_BENCH_SOAK_REPORT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/soak/proc_status.h"
#include "bench/soak/soak_options.h"

namespace toolgate {
namespace soak {

struct RssPoint {
  int64_t calls_done = 0;  // Checked calls completed when sampled.
  ProcSample sample;
};

struct SoakReport {
  SoakOptions options;
  int64_t calls = 0;  // Checked calls completed (errors included).
  std::map<std::string, int64_t> calls_by_kind;
  int64_t runs_opened = 0;
  int64_t runs_closed = 0;
  int64_t closed_run_probes = 0;  // Calls to a closed run (NOT_FOUND).
  int64_t errors = 0;
  // "mismatch openai_allow", "ValidateToolCall UNAVAILABLE", "rss", ...
  std::map<std::string, int64_t> errors_by_kind;
  std::string stopped_by = "calls";  // Or "time_limit" or "max_errors".
  double elapsed_seconds = 0;
  std::optional<RssPoint> start;         // Before the first call.
  std::optional<RssPoint> after_warmup;  // At warmup_fraction of calls.
  std::optional<RssPoint> end;           // After the last call.
  std::vector<RssPoint> samples;         // Every tenth of the calls.
};

// 100 * (to - from) / from; 0 for from <= 0.
double GrowthPercent(int64_t from_kb, int64_t to_kb);

// Why the soak failed; empty when it passed. Fails on any error, on fewer
// calls than asked, on a missing RSS sample, and on growth after warm-up
// above options.max_rss_growth_percent.
std::vector<std::string> Failures(const SoakReport& report);

// One line of JSON, no trailing newline.
std::string JsonLine(const SoakReport& report);

}  // namespace soak
}  // namespace toolgate

#endif  // TOOLGATE_BENCH_SOAK_REPORT_H_
