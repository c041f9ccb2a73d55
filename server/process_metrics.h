// The process's own state for /metrics, read from /proc/self at scrape time
// (prometheus-cpp has no process collector): the standard names
// process_resident_memory_bytes, process_virtual_memory_bytes,
// process_cpu_seconds_total, process_open_fds, process_start_time_seconds,
// and toolgate_threads (no standard name exists for threads).
//
// Thread-safety: Collect may be called from any thread; it keeps no state.
#ifndef TOOLGATE_SERVER_PROCESS_METRICS_H_
#define TOOLGATE_SERVER_PROCESS_METRICS_H_

#include <vector>

#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace toolgate {
namespace server {

class ProcessMetrics final : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override;
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_PROCESS_METRICS_H_
