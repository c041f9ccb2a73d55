// The decision: may these tool calls execute?
//
// ALLOW only when every call names a tool of the snapshot by exact,
// case-sensitive name and its arguments validate against that tool's
// schema. Anything unread, unknown or invalid is REJECT with violations a
// model can act on; nothing undecidable becomes ALLOW.
//
// Thread-safety: pure function over an immutable snapshot.
#ifndef TOOLGATE_CORE_GATE_GATE_H_
#define TOOLGATE_CORE_GATE_GATE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/gate/calls.h"
#include "core/snapshot/snapshot.h"
#include "core/util/cancel.h"

namespace toolgate {

enum class Decision { kAllow, kReject, kNeedsApproval, kStop };

absl::string_view DecisionName(Decision d);

struct Violation {
  std::string code;  // Stable snake_case, documented in the README.
  std::string tool;
  std::string pointer;  // Into the call's arguments (see README).
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
};

struct GateResult {
  Decision decision = Decision::kReject;
  std::vector<CheckedCall> calls;
  std::vector<Violation> violations;
  std::string stop_reason;
  // Not OK when the caller went away mid-check (CANCELLED or
  // DEADLINE_EXCEEDED): then nothing was decided and `decision` is kReject.
  absl::Status interrupted;
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

GateResult CheckToolCalls(const Snapshot& snapshot, RawCalls calls,
                          const GateOptions& options = GateOptions());

}  // namespace toolgate

#endif  // TOOLGATE_CORE_GATE_GATE_H_
