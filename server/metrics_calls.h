// Per-tool decisions and the repair loop's depth, for the dashboard's
// "reject ratio by tool" and "repair attempts" panels.
//
//   toolgate_tool_calls_total{tool, decision}  each call of a decided
//       output, under its output's decision. `tool` is a tool name of the
//       snapshot; a call refused as unknown_tool (or without a name a tool
//       could have) is "(unknown)". The label is bounded: the first
//       kMaxTools names seen get their own series, later ones count as
//       "other", so neither a model nor a caller that registers manifests
//       (--snapshot_create=any) can grow the series without bound.
//   toolgate_repair_attempts_total{attempt}  each REJECT in a run, by its
//       attempt number "1" .. "9", or "10+".
//
// Thread-safety: Count may be called concurrently (one short mutex).
#ifndef TOOLGATE_SERVER_METRICS_CALLS_H_
#define TOOLGATE_SERVER_METRICS_CALLS_H_

#include <array>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/registry.h"
#include "toolgate/v1/toolgate.pb.h"

namespace toolgate {
namespace server {

class CallMetrics {
 public:
  static constexpr size_t kMaxTools = 256;

  explicit CallMetrics(prometheus::Registry& registry);

  void Count(bool in_run, const v1::ValidateToolCallResponse& response);

 private:
  // ALLOW, REJECT, NEEDS_APPROVAL, STOP, other.
  using ByDecision = std::array<prometheus::Counter*, 5>;
  ByDecision& Tool(const std::string& name);

  prometheus::Family<prometheus::Counter>& tool_calls_;
  std::array<prometheus::Counter*, 10> attempts_{};
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, ByDecision> tools_ ABSL_GUARDED_BY(mu_);
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_METRICS_CALLS_H_
