#include "bench/load/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"

namespace toolgate {
namespace load {
namespace {

double Micros(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

// Rounded to 0.1 us: finer digits would suggest a precision a loaded
// 2-core machine does not have.
double Rounded(double us) { return std::round(us * 10) / 10; }

}  // namespace

int64_t Percentile(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  q = std::clamp(q, 0.0, 1.0);
  // Rank ceil(q * n), 1-based; q = 0 means the minimum. The epsilon keeps
  // 0.9 * 1000 (900.0000000000001 in binary) at rank 900.
  size_t rank = static_cast<size_t>(std::ceil(q * sorted.size() - 1e-9));
  if (rank == 0) rank = 1;
  return sorted[std::min(rank, sorted.size()) - 1];
}

LatencySummary Summarize(std::vector<int64_t> samples_ns) {
  LatencySummary s;
  if (samples_ns.empty()) return s;
  std::sort(samples_ns.begin(), samples_ns.end());
  s.count = static_cast<int64_t>(samples_ns.size());
  s.p50_ns = Percentile(samples_ns, 0.50);
  s.p90_ns = Percentile(samples_ns, 0.90);
  s.p99_ns = Percentile(samples_ns, 0.99);
  s.max_ns = samples_ns.back();
  s.mean_ns = std::accumulate(samples_ns.begin(), samples_ns.end(), 0.0) /
              static_cast<double>(s.count);
  return s;
}

const char* DecisionLabel(int wire_value) {
  static const char* kLabels[kDecisionCount] = {
      "UNSPECIFIED", "ALLOW", "REJECT", "NEEDS_APPROVAL", "STOP"};
  return wire_value >= 0 && wire_value < kDecisionCount ? kLabels[wire_value]
                                                        : "?";
}

std::string HumanLine(const LoadReport& r) {
  const LatencySummary& l = r.latency;
  std::string line = absl::StrFormat(
      "mode=%s mix=%s concurrency=%d elapsed=%.2fs requests=%d errors=%d "
      "qps=%.1f latency_us p50=%.1f p90=%.1f p99=%.1f max=%.1f decisions",
      ModeName(r.options.mode), MixName(r.options.mix), r.options.concurrency,
      r.elapsed_seconds, r.requests, r.errors, r.qps(), Micros(l.p50_ns),
      Micros(l.p90_ns), Micros(l.p99_ns), Micros(l.max_ns));
  for (int d = 0; d < kDecisionCount; ++d) {
    absl::StrAppend(&line, " ", DecisionLabel(d), "=", r.decisions[d]);
  }
  if (!r.outcomes.empty()) absl::StrAppend(&line, " outcomes");
  for (const auto& [label, n] : r.outcomes) {
    absl::StrAppend(&line, " ", label, "=", n);
  }
  absl::StrAppend(&line, " unexpected=", r.unexpected,
                  " run_resets=", r.run_resets,
                  absl::StrFormat(" client_cpu=%.2fs", r.client_cpu_seconds));
  for (const auto& [code, n] : r.error_codes) {
    absl::StrAppend(&line, " error[", code, "]=", n);
  }
  return line;
}

std::string JsonLine(const LoadReport& r) {
  const LatencySummary& l = r.latency;
  nlohmann::ordered_json decisions = nlohmann::ordered_json::object();
  for (int d = 0; d < kDecisionCount; ++d) {
    decisions[DecisionLabel(d)] = r.decisions[d];
  }
  nlohmann::ordered_json j = {
      {"label", r.options.label},
      {"addr", r.options.addr},
      {"mode", std::string(ModeName(r.options.mode))},
      {"mix", std::string(MixName(r.options.mix))},
      {"concurrency", r.options.concurrency},
      {"elapsed_s", std::round(r.elapsed_seconds * 1000) / 1000},
      {"requests", r.requests},
      {"errors", r.errors},
      {"qps", std::round(r.qps() * 10) / 10},
      {"latency_us",
       {{"p50", Rounded(Micros(l.p50_ns))},
        {"p90", Rounded(Micros(l.p90_ns))},
        {"p99", Rounded(Micros(l.p99_ns))},
        {"max", Rounded(Micros(l.max_ns))},
        {"mean", Rounded(l.mean_ns / 1000.0)}}},
      {"decisions", decisions},
      {"unexpected", r.unexpected},
      {"run_resets", r.run_resets},
      {"client_cpu_s", std::round(r.client_cpu_seconds * 1000) / 1000},
      {"error_codes", r.error_codes},
      {"outcomes", r.outcomes}};
  return j.dump();
}

}  // namespace load
}  // namespace toolgate
