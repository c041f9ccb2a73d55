// Metrics that follow a count kept elsewhere, caught up at each scrape, and
// the approvals' decisions:
//   toolgate_approvals_pending                 gauge, pending approvals held
//   toolgate_approvals_decided_total{decision} APPROVED / DENIED answers of
//                                              DecideApproval
//   toolgate_spans_exported_total,             spans sent to --otlp_endpoint,
//   toolgate_spans_dropped_total               and dropped (a full queue or
//                                              a failed export)
//
// Thread-safety: all methods may be called concurrently.
#ifndef TOOLGATE_SERVER_METRICS_SCRAPED_H_
#define TOOLGATE_SERVER_METRICS_SCRAPED_H_

#include <atomic>
#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "core/engine/engine.h"
#include "core/trace/tracer.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"
#include "toolgate/v1/toolgate.pb.h"

namespace toolgate {
namespace server {

class ScrapedMetrics {
 public:
  explicit ScrapedMetrics(prometheus::Registry& registry);

  // `tracer` may be null (tracing off: the span counters stay at 0). Not
  // owned. Atomic: the metrics endpoint may already be scraping when the
  // tracer is set.
  void set_tracer(const trace::Tracer* tracer) {
    tracer_.store(tracer, std::memory_order_release);
  }

  // At scrape time. `engine` may be null.
  void Refresh(const Engine* engine) const;
  void Decided(const v1::DecideApprovalResponse& response);

 private:
  std::atomic<const trace::Tracer*> tracer_{nullptr};
  prometheus::Gauge* pending_;
  prometheus::Counter* approved_;
  prometheus::Counter* denied_;
  prometheus::Counter* spans_exported_;
  prometheus::Counter* spans_dropped_;
  mutable absl::Mutex mu_;
  mutable uint64_t exported_seen_ ABSL_GUARDED_BY(mu_) = 0;
  mutable uint64_t dropped_seen_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_METRICS_SCRAPED_H_
