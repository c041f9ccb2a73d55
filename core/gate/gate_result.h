// What the gate's stages build up for one model output: the calls as
// resolved and checked, the violations found, and the decision.
//
// The stages (resolve_tools.h, check_arguments.h, approval.h, decide.h)
// each take a GateResult and add to it, in that order; policy stages of
// the engine's pipeline run between check_arguments and decide and speak
// through `needs_approval` and `vetoes`. Only Decide sets `decision`, and
// it starts as REJECT: a result no stage finished is never an ALLOW.
#ifndef TOOLGATE_CORE_GATE_GATE_RESULT_H_
#define TOOLGATE_CORE_GATE_GATE_RESULT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/gate/calls.h"
#include "core/snapshot/snapshot.h"
#include "core/util/cancel.h"

namespace toolgate {

enum class Decision { kAllow, kReject, kNeedsApproval, kStop };

absl::string_view DecisionName(Decision d);

struct Violation {
  std::string code;  // Stable snake_case, documented in docs/contract.md.
  std::string tool;
  std::string pointer;  // Into the call's arguments (docs/contract.md).
  std::string keyword;
  std::string expected;
  std::string received;
  std::string message;
  std::string schema_pointer;
  int call_index = -1;
};

struct CheckedCall {
  RawCall raw;
  const CompiledTool* tool = nullptr;  // Null when unresolved.
  bool valid = false;
  // Refused by "policy (coerce)" (text it could not strip): the schema
  // does not see it, so nothing can make it valid again.
  bool refused_before_schema = false;
};

struct GateResult {
  Decision decision = Decision::kReject;
  std::vector<CheckedCall> calls;
  std::vector<Violation> violations;
  std::string stop_reason;
  // Not OK when the caller went away mid-check (CANCELLED or
  // DEADLINE_EXCEEDED): then nothing was decided and `decision` is kReject.
  absl::Status interrupted;

  // Set by policy stages, read by Decide. A valid output one of whose
  // tools needs a human is NEEDS_APPROVAL, not ALLOW.
  bool needs_approval = false;
  // A veto refuses the output whatever its calls' validity: Decide lists
  // the vetoes after the (capped) call violations and takes `veto_reason`
  // as the stop_reason.
  std::vector<Violation> vetoes;
  std::string veto_reason;
};

struct GateOptions {
  // Cap on schema violations reported per call.
  size_t max_violations_per_call = 20;
  // Calls checked per output. An output with more is refused whole with one
  // too_many_calls violation, before any call is resolved.
  size_t max_calls_per_output = 64;
  // Violations listed per result, and the bytes of their text; past either
  // cap the rest are counted in one final too_many_violations violation.
  size_t max_violations = 100;
  size_t max_violation_bytes = 256 * 1024;
  // Tool names an unknown_tool violation lists when no name is near.
  size_t max_listed_tools = 20;
  // Unknown tools per output for which near names are searched (each
  // search compares the name with every tool); later ones get the list.
  size_t max_suggested_calls = 8;
  // Checked between calls (and while looking for near names). Not owned.
  const CancelToken* cancel = nullptr;
};

// Sets result->interrupted from options.cancel; true while the caller
// still waits. Inline: it runs between every two calls of every stage.
inline bool StillWaiting(const GateOptions& options, GateResult* result) {
  if (options.cancel == nullptr) return true;
  result->interrupted = options.cancel->Check();
  return result->interrupted.ok();
}

}  // namespace toolgate

#endif  // TOOLGATE_CORE_GATE_GATE_RESULT_H_
