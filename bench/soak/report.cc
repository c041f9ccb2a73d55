#include "bench/soak/report.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace toolgate {
namespace soak {
namespace {

using OJson = nlohmann::ordered_json;

OJson PointJson(const std::optional<RssPoint>& p) {
  if (!p.has_value()) return nullptr;
  return OJson{{"calls_done", p->calls_done},
               {"rss_kb", p->sample.rss_kb},
               {"threads", p->sample.threads},
               {"open_fds", p->sample.open_fds}};
}

OJson RssKb(const std::optional<RssPoint>& p) {
  return p.has_value() ? OJson(p->sample.rss_kb) : OJson(nullptr);
}

double Round2(double x) { return std::round(x * 100) / 100; }

}  // namespace

double GrowthPercent(int64_t from_kb, int64_t to_kb) {
  if (from_kb <= 0) return 0;
  return 100.0 * static_cast<double>(to_kb - from_kb) /
         static_cast<double>(from_kb);
}

std::vector<std::string> Failures(const SoakReport& r) {
  std::vector<std::string> out;
  if (r.errors > 0) out.push_back(absl::StrCat(r.errors, " errors"));
  if (r.calls < r.options.calls) {
    out.push_back(absl::StrCat("only ", r.calls, " of ", r.options.calls,
                               " calls", " (stopped by ", r.stopped_by, ")"));
  }
  if (!r.after_warmup.has_value() || !r.end.has_value()) {
    out.push_back("no RSS sample after warm-up or at the end");
    return out;
  }
  const double growth =
      GrowthPercent(r.after_warmup->sample.rss_kb, r.end->sample.rss_kb);
  if (growth > r.options.max_rss_growth_percent) {
    out.push_back(absl::StrCat("RSS grew ", Round2(growth),
                               "% after warm-up (limit ",
                               r.options.max_rss_growth_percent, "%)"));
  }
  return out;
}

std::string JsonLine(const SoakReport& r) {
  OJson samples = OJson::array();
  for (const RssPoint& p : r.samples) samples.push_back(PointJson(p));
  OJson growth = nullptr;
  if (r.after_warmup.has_value() && r.end.has_value()) {
    growth = Round2(
        GrowthPercent(r.after_warmup->sample.rss_kb, r.end->sample.rss_kb));
  }
  const std::vector<std::string> failures = Failures(r);
  OJson j = {
      {"label", r.options.label},
      {"ok", failures.empty()},
      {"failures", failures},
      {"calls_requested", r.options.calls},
      {"calls", r.calls},
      {"calls_by_kind", r.calls_by_kind},
      {"runs_opened", r.runs_opened},
      {"runs_closed", r.runs_closed},
      {"closed_run_probes", r.closed_run_probes},
      {"errors", r.errors},
      {"errors_by_kind", r.errors_by_kind},
      {"stopped_by", r.stopped_by},
      {"elapsed_s", Round2(r.elapsed_seconds)},
      {"calls_per_second",
       r.elapsed_seconds > 0 ? Round2(r.calls / r.elapsed_seconds) : 0.0},
      {"workers", r.options.workers},
      {"calls_per_run", r.options.calls_per_run},
      {"warmup_fraction", r.options.warmup_fraction},
      {"rss_start_kb", RssKb(r.start)},
      {"rss_after_warmup_kb", RssKb(r.after_warmup)},
      {"rss_end_kb", RssKb(r.end)},
      {"growth_percent", growth},
      {"max_rss_growth_percent", r.options.max_rss_growth_percent},
      {"after_warmup", PointJson(r.after_warmup)},
      {"end", PointJson(r.end)},
      {"samples", samples},
  };
  return j.dump();
}

}  // namespace soak
}  // namespace toolgate
