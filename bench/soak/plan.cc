#include "bench/soak/plan.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "bench/engine/payloads.h"
#include "bench/load/workload.h"

namespace toolgate {
namespace soak {
namespace {

Step CallStep(const std::string& name) {
  const bench::CallPayload& p = bench::CallNamed(name);
  load::Item item = load::CallItem(p);
  Step step;
  step.name = name;
  step.kind = !p.native                           ? "text"
              : p.expect == bench::Expect::kAllow ? "allow"
                                                  : "reject";
  step.snapshot = p.snapshot;
  step.type = StepType::kCall;
  step.call = std::move(item.request);
  step.expect_decision = item.expect;
  return step;
}

Step VerdictStep(std::string name, std::string envelope, v1::Outcome want) {
  Step step;
  step.name = std::move(name);
  step.kind = "verdict";
  step.snapshot = "tickets";  // Only bound in run mode (audit tie).
  step.type = StepType::kVerdict;
  step.verdict.set_envelope(std::move(envelope));
  step.verdict.set_repair(v1::REPAIR_POLICY_STRICT);
  step.expect_outcome = want;
  return step;
}

// The shared envelope ends in its final result block (PASS). Cut before
// that block, the draft block (verdict "fail") is the last one: FAIL. Cut
// inside it, the last block never closes: CONTRACT_STOP, and never the
// earlier draft's FAIL or a PASS.
std::vector<Step> VerdictSteps() {
  const std::string& full = bench::VerdictEnvelope();
  const size_t final_block = full.rfind("```json");
  const size_t inside = full.find('{', final_block) + 20;
  return {VerdictStep("verdict_pass", full, v1::OUTCOME_PASS),
          VerdictStep("verdict_fail_draft_last", full.substr(0, final_block),
                      v1::OUTCOME_FAIL),
          VerdictStep("verdict_truncated", full.substr(0, inside),
                      v1::OUTCOME_CONTRACT_STOP)};
}

std::vector<Step> OutputSteps() {
  std::vector<Step> steps;
  for (const bench::OutputPayload& p : bench::ToolOutputs()) {
    Step step;
    step.name = p.name;
    step.kind = "output";
    step.snapshot = p.snapshot;
    step.type = StepType::kOutput;
    step.output.set_tool_name(p.tool);
    step.output.set_content_type(p.content_type);
    step.output.set_http_status(p.http_status);
    step.output.set_body(p.body);
    step.output.set_mode(v1::OUTPUT_MODE_FAIL_CLOSED);
    step.expect_output =
        p.expect_valid ? v1::OUTPUT_VERDICT_VALID : v1::OUTPUT_VERDICT_INVALID;
    steps.push_back(std::move(step));
  }
  return steps;
}

template <typename Request>
void SetTarget(const Target& t, bool bind_snapshot, Request* r) {
  r->set_snapshot_id(t.run_id.empty() && bind_snapshot ? t.snapshot_id : "");
  r->set_run_id(t.run_id);
  r->set_run_token(t.run_token);
}

}  // namespace

std::vector<Step> BuildCycle() {
  std::vector<Step> others;
  const std::vector<Step> verdicts = VerdictSteps();
  const std::vector<Step> outputs = OutputSteps();
  for (size_t i = 0; i < verdicts.size() || i < outputs.size(); ++i) {
    if (i < verdicts.size()) others.push_back(verdicts[i]);
    if (i < outputs.size()) others.push_back(outputs[i]);
  }
  std::vector<Step> cycle;
  size_t next_other = 0;
  for (const std::string& name : load::PayloadNames(load::Mix::kMixed)) {
    cycle.push_back(CallStep(name));
    if (cycle.size() % 3 == 2) {
      cycle.push_back(others[next_other++ % others.size()]);
    }
  }
  while (next_other < others.size()) cycle.push_back(others[next_other++]);
  return cycle;
}

std::vector<std::string> SnapshotNames(const std::vector<Step>& steps) {
  std::set<std::string> names;
  for (const Step& s : steps) {
    if (!s.snapshot.empty()) names.insert(s.snapshot);
  }
  return {names.begin(), names.end()};
}

void Address(const Target& target, Step* step) {
  switch (step->type) {
    case StepType::kCall:
      return SetTarget(target, true, &step->call);
    case StepType::kVerdict:
      // A verdict needs no snapshot; it is tied to the run for audit.
      return SetTarget(target, false, &step->verdict);
    case StepType::kOutput:
      return SetTarget(target, true, &step->output);
  }
}

std::string CheckCall(const Step& step, const v1::ValidateToolCallResponse& r,
                      const std::string& snapshot_id) {
  if (r.decision() != step.expect_decision) {
    return absl::StrCat("decision ", v1::Decision_Name(r.decision()), " (",
                        r.stop_reason(), "), want ",
                        v1::Decision_Name(step.expect_decision));
  }
  if (r.decision() == v1::DECISION_ALLOW &&
      (r.calls_size() == 0 || r.violations_size() != 0)) {
    return absl::StrCat("ALLOW with ", r.calls_size(), " calls and ",
                        r.violations_size(), " violations");
  }
  if (r.decision() == v1::DECISION_REJECT &&
      (r.violations_size() == 0 || r.repair_prompt().empty())) {
    return "REJECT without violations or repair prompt";
  }
  if (r.snapshot_id() != snapshot_id) {
    return absl::StrCat("answered from snapshot ", r.snapshot_id(), ", want ",
                        snapshot_id);
  }
  if (r.audit_id().empty()) return "no audit_id";
  return "";
}

std::string CheckVerdict(const Step& step,
                         const v1::ExtractVerdictResponse& r) {
  if (r.outcome() != step.expect_outcome) {
    return absl::StrCat("outcome ", v1::Outcome_Name(r.outcome()), " (",
                        r.stop_reason(), "), want ",
                        v1::Outcome_Name(step.expect_outcome));
  }
  const bool stop = r.outcome() == v1::OUTCOME_CONTRACT_STOP;
  if (stop && !r.result_json().empty()) return "CONTRACT_STOP with a result";
  if (!stop && r.result_json().empty()) return "no result_json";
  if (stop && r.stop_reason().empty()) return "CONTRACT_STOP without reason";
  if (r.audit_id().empty()) return "no audit_id";
  return "";
}

std::string CheckOutput(const Step& step,
                        const v1::ValidateToolOutputResponse& r) {
  if (r.verdict() != step.expect_output) {
    return absl::StrCat("verdict ", v1::OutputVerdict_Name(r.verdict()), " (",
                        r.stop_reason(), "), want ",
                        v1::OutputVerdict_Name(step.expect_output));
  }
  if (r.verdict() == v1::OUTPUT_VERDICT_INVALID && r.violations_size() == 0) {
    return "INVALID without violations";
  }
  // The soak's runs set the kill switch out of reach (1000 of 1000).
  if (r.read_only()) return "run turned read-only";
  if (r.audit_id().empty()) return "no audit_id";
  return "";
}

}  // namespace soak
}  // namespace toolgate
