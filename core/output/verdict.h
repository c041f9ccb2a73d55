// Verdicts and modes shared by tool-output validation and the per-run
// kill-switch window. Kept apart from output.h so the window carries no
// dependency on the schema engine.
//
// Thread-safe: plain enums.
#ifndef TOOLGATE_CORE_OUTPUT_VERDICT_H_
#define TOOLGATE_CORE_OUTPUT_VERDICT_H_

namespace toolgate {
namespace output {

enum class OutputVerdict {
  kValid,
  kInvalid,
};

// What the agent is told to do with an invalid output.
enum class OutputMode {
  // Zero value of the wire enum: treated exactly like kFailClosed, because a
  // caller that said nothing has not opted into continuing.
  kUnspecified,
  // Stop: safe_mode stays empty.
  kFailClosed,
  // Continue read-only: safe_mode is "skip_writes".
  kDegrade,
};

}  // namespace output
}  // namespace toolgate

#endif  // TOOLGATE_CORE_OUTPUT_VERDICT_H_
