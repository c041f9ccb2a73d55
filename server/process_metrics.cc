#include "server/process_metrics.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/numbers.h"

namespace toolgate {
namespace server {
namespace {

prometheus::MetricFamily Gauge(const char* name, const char* help,
                               double value,
                               prometheus::MetricType type =
                                   prometheus::MetricType::Gauge) {
  prometheus::MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = type;
  prometheus::ClientMetric m;
  if (type == prometheus::MetricType::Counter) {
    m.counter.value = value;
  } else {
    m.gauge.value = value;
  }
  f.metric.push_back(m);
  return f;
}

// Fields of /proc/self/stat after the command name (which may hold
// spaces and parentheses: read from the last ')').
struct Stat {
  double utime_ticks = 0, stime_ticks = 0, start_ticks = 0;
  double vsize = 0, rss_pages = 0, threads = 0;
};

bool ReadStat(Stat* out) {
  std::ifstream in("/proc/self/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream fields(line.substr(close + 2));
  std::string f[40];
  for (int i = 0; i < 40 && (fields >> f[i]); ++i) {
  }
  // Field numbers of proc(5), minus 3 (state is field 3, index 0 here).
  return absl::SimpleAtod(f[11], &out->utime_ticks) &&
         absl::SimpleAtod(f[12], &out->stime_ticks) &&
         absl::SimpleAtod(f[17], &out->threads) &&
         absl::SimpleAtod(f[19], &out->start_ticks) &&
         absl::SimpleAtod(f[20], &out->vsize) &&
         absl::SimpleAtod(f[21], &out->rss_pages);
}

double OpenFds() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return 0;
  double n = 0;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n - 1;  // The directory handle itself.
}

double BootTime() {
  std::ifstream in("/proc/stat");
  std::string key;
  double value = 0;
  while (in >> key) {
    if (key == "btime" && (in >> value)) return value;
    in.ignore(1 << 20, '\n');
  }
  return 0;
}

}  // namespace

std::vector<prometheus::MetricFamily> ProcessMetrics::Collect() const {
  std::vector<prometheus::MetricFamily> out;
  Stat s;
  if (!ReadStat(&s)) return out;
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  out.push_back(Gauge("process_resident_memory_bytes",
                      "Resident memory size in bytes.", s.rss_pages * page));
  out.push_back(Gauge("process_virtual_memory_bytes",
                      "Virtual memory size in bytes.", s.vsize));
  out.push_back(Gauge("process_cpu_seconds_total",
                      "Total user and system CPU time spent in seconds.",
                      (s.utime_ticks + s.stime_ticks) / ticks,
                      prometheus::MetricType::Counter));
  out.push_back(Gauge("process_open_fds", "Number of open file descriptors.",
                      OpenFds()));
  out.push_back(Gauge("process_start_time_seconds",
                      "Start time of the process since unix epoch in seconds.",
                      BootTime() + s.start_ticks / ticks));
  out.push_back(Gauge("toolgate_threads", "Threads of the toolgate process.",
                      s.threads));
  return out;
}

}  // namespace server
}  // namespace toolgate
