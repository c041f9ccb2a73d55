#include "server/metrics_calls.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace toolgate {
namespace server {
namespace {

constexpr const char* kDecisions[] = {"ALLOW", "REJECT", "NEEDS_APPROVAL",
                                      "STOP", "other"};

int DecisionIndex(v1::Decision d) {
  switch (d) {
    case v1::DECISION_ALLOW:
      return 0;
    case v1::DECISION_REJECT:
      return 1;
    case v1::DECISION_NEEDS_APPROVAL:
      return 2;
    case v1::DECISION_STOP:
      return 3;
    default:
      return 4;
  }
}

// A name a tool of a snapshot could have (README: 1-128 bytes of letters,
// digits and _ - . /); anything else never names a declared tool.
bool ToolNameShaped(const std::string& name) {
  if (name.empty() || name.size() > 128) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' ||
           c == '/';
  });
}

}  // namespace

CallMetrics::CallMetrics(prometheus::Registry& registry, Declared declared)
    : declared_(std::move(declared)),
      tool_calls_(prometheus::BuildCounter()
                      .Name("toolgate_tool_calls_total")
                      .Help("Calls in decided outputs, by tool and by the "
                            "output's decision (tool: at most 256 names, "
                            "then other; (unknown) for names the snapshot "
                            "does not declare).")
                      .Register(registry)) {
  auto& attempts =
      prometheus::BuildCounter()
          .Name("toolgate_repair_attempts_total")
          .Help("REJECTs in runs, by their attempt in the repair loop.")
          .Register(registry);
  for (size_t i = 0; i < attempts_.size(); ++i) {
    const std::string label = i + 1 < attempts_.size()
                                  ? absl::StrCat(i + 1)
                                  : absl::StrCat(attempts_.size(), "+");
    attempts_[i] = &attempts.Add({{"attempt", label}});
  }
  // The fixed labels exist from the start, like every other series.
  absl::MutexLock lock(&mu_);
  for (const char* fixed : {"(unknown)", "other"}) {
    ByDecision& row = tools_[fixed];
    for (size_t d = 0; d < row.size(); ++d) {
      row[d] = &tool_calls_.Add({{"tool", fixed}, {"decision", kDecisions[d]}});
    }
  }
}

CallMetrics::ByDecision& CallMetrics::Tool(const std::string& name) {
  auto it = tools_.find(name);
  if (it != tools_.end()) return it->second;
  if (tools_.size() >= kMaxTools + 2) return tools_.find("other")->second;
  ByDecision& row = tools_[name];
  for (size_t d = 0; d < row.size(); ++d) {
    row[d] = &tool_calls_.Add({{"tool", name}, {"decision", kDecisions[d]}});
  }
  return row;
}

CallMetrics::ByDecision& CallMetrics::Row(const std::string& snapshot_id,
                                          const std::string& name) {
  // A name already labelled was declared by some snapshot; a new one must
  // be declared by this response's snapshot, so no request text (a model's
  // made-up tool, a call cut before resolution) ever becomes a label.
  if (tools_.contains(name)) return tools_.find(name)->second;
  if (!ToolNameShaped(name) || declared_ == nullptr ||
      !declared_(snapshot_id, name)) {
    return tools_.find("(unknown)")->second;
  }
  return Tool(name);
}

void CallMetrics::Count(bool in_run,
                        const v1::ValidateToolCallResponse& response) {
  const int decision = DecisionIndex(response.decision());
  if (in_run && response.decision() == v1::DECISION_REJECT &&
      response.attempt() > 0) {
    const size_t i = std::min<size_t>(response.attempt(), attempts_.size());
    attempts_[i - 1]->Increment();
  }
  if (response.calls_size() == 0) return;
  std::vector<bool> unknown(response.calls_size(), false);
  for (const v1::Violation& v : response.violations()) {
    if (v.code() == "unknown_tool" && v.call_index() >= 0 &&
        v.call_index() < response.calls_size()) {
      unknown[v.call_index()] = true;
    }
  }
  absl::MutexLock lock(&mu_);
  for (int i = 0; i < response.calls_size(); ++i) {
    const std::string& name = response.calls(i).name();
    ByDecision& row = unknown[i] ? tools_.find("(unknown)")->second
                                 : Row(response.snapshot_id(), name);
    row[decision]->Increment();
  }
}

}  // namespace server
}  // namespace toolgate
