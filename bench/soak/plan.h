// What the soak sends and what it must get back: a cycle of steps built
// from the shared benchmark payloads (bench/engine/payloads.h), each with
// the answer it must receive, and the checks that compare an answer with
// that expectation.
#ifndef TOOLGATE_BENCH_SOAK_PLAN_H_
#define TOOLGATE_BENCH_SOAK_PLAN_H_

#include <string>
#include <vector>

#include "toolgate/v1/toolgate.pb.h"

namespace toolgate {
namespace soak {

enum class StepType { kCall, kVerdict, kOutput };

struct Step {
  std::string name;      // Payload name, e.g. "openai_allow".
  std::string kind;      // allow, reject, text, verdict or output.
  std::string snapshot;  // Snapshot name it is addressed to; "" for none.
  StepType type = StepType::kCall;
  // Only the request of `type` is used; snapshot and run fields are
  // filled in per call (see Address).
  v1::ValidateToolCallRequest call;
  v1::Decision expect_decision = v1::DECISION_UNSPECIFIED;
  v1::ExtractVerdictRequest verdict;
  v1::Outcome expect_outcome = v1::OUTCOME_UNSPECIFIED;
  v1::ValidateToolOutputRequest output;
  v1::OutputVerdict expect_output = v1::OUTPUT_VERDICT_UNSPECIFIED;
};

// The steps a worker cycles through: the twelve ValidateToolCall payloads
// of the load generator's mixed mix (native ALLOW, native REJECT, text),
// with a verdict (PASS, FAIL, CONTRACT_STOP) or a tool output (two VALID,
// one INVALID) after every second call.
std::vector<Step> BuildCycle();

// The distinct snapshot names the steps use, sorted.
std::vector<std::string> SnapshotNames(const std::vector<Step>& steps);

// Where a step goes: a snapshot (stateless) or a run. Verdicts with no
// snapshot stay unbound in stateless mode.
struct Target {
  std::string snapshot_id;
  std::string run_id;
  std::string run_token;
};
void Address(const Target& target, Step* step);

// "" when the answer is what the step expects; otherwise what differs.
// `snapshot_id` is the snapshot the call must report having used.
std::string CheckCall(const Step& step, const v1::ValidateToolCallResponse& r,
                      const std::string& snapshot_id);
std::string CheckVerdict(const Step& step, const v1::ExtractVerdictResponse& r);
std::string CheckOutput(const Step& step,
                        const v1::ValidateToolOutputResponse& r);

}  // namespace soak
}  // namespace toolgate

#endif  // TOOLGATE_BENCH_SOAK_PLAN_H_
