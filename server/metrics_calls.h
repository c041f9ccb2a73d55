// Per-tool decisions and the repair loop's depth, for the dashboard's
// "reject ratio by tool" and "repair attempts" panels.
//
//   toolgate_tool_calls_total{tool, decision}  each call of a decided
//       output, under its output's decision. `tool` is a tool name that
//       the response's snapshot declares (operator text, never a model's or
//       a caller's): any other name is "(unknown)". The label is bounded: the first
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
#include <functional>
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

  // Whether the snapshot `snapshot_id` declares a tool `name`; asked only
  // for names not yet labelled.
  using Declared = std::function<bool(const std::string& snapshot_id,
                                      const std::string& name)>;

  CallMetrics(prometheus::Registry& registry, Declared declared);

  void Count(bool in_run, const v1::ValidateToolCallResponse& response);

 private:
  // ALLOW, REJECT, NEEDS_APPROVAL, STOP, other.
  using ByDecision = std::array<prometheus::Counter*, 5>;
  ByDecision& Tool(const std::string& name)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ByDecision& Row(const std::string& snapshot_id, const std::string& name)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Declared declared_;
  prometheus::Family<prometheus::Counter>& tool_calls_;
  std::array<prometheus::Counter*, 10> attempts_{};
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, ByDecision> tools_ ABSL_GUARDED_BY(mu_);
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_METRICS_CALLS_H_
