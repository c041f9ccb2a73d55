#include "server/metrics_scraped.h"

namespace toolgate {
namespace server {
namespace {

prometheus::Counter* NewCounter(prometheus::Registry& registry,
                                const char* name, const char* help) {
  return &prometheus::BuildCounter().Name(name).Help(help).Register(registry).Add(
      {});
}

// Moves `counter` up to `now` from the `seen` it last caught up with.
void CatchUp(prometheus::Counter* counter, uint64_t now, uint64_t* seen) {
  if (now > *seen) {
    counter->Increment(static_cast<double>(now - *seen));
    *seen = now;
  }
}

}  // namespace

ScrapedMetrics::ScrapedMetrics(prometheus::Registry& registry) {
  pending_ = &prometheus::BuildGauge()
                  .Name("toolgate_approvals_pending")
                  .Help("Pending approvals held (read at scrape time).")
                  .Register(registry)
                  .Add({});
  auto& decided = prometheus::BuildCounter()
                      .Name("toolgate_approvals_decided_total")
                      .Help("Approvals decided by an approver, by decision.")
                      .Register(registry);
  approved_ = &decided.Add({{"decision", "APPROVED"}});
  denied_ = &decided.Add({{"decision", "DENIED"}});
  spans_exported_ = NewCounter(registry, "toolgate_spans_exported_total",
                               "Spans exported to --otlp_endpoint.");
  spans_dropped_ = NewCounter(
      registry, "toolgate_spans_dropped_total",
      "Spans dropped: the export queue was full or an export failed.");
}

void ScrapedMetrics::Refresh(const Engine* engine) const {
  if (engine != nullptr) {
    pending_->Set(static_cast<double>(engine->pending_approval_count()));
  }
  const trace::Tracer* tracer = tracer_.load(std::memory_order_acquire);
  if (tracer == nullptr) return;
  absl::MutexLock lock(&mu_);
  CatchUp(spans_exported_, tracer->exported(), &exported_seen_);
  CatchUp(spans_dropped_, tracer->dropped(), &dropped_seen_);
}

void ScrapedMetrics::Decided(const v1::DecideApprovalResponse& response) {
  if (response.approval().state() == v1::APPROVAL_STATE_APPROVED) {
    approved_->Increment();
  } else if (response.approval().state() == v1::APPROVAL_STATE_DENIED) {
    denied_->Increment();
  }
}

}  // namespace server
}  // namespace toolgate
