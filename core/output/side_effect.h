// The side-effect class of a tool: what running it can change.
//
// Used to decide which tools an agent may still call after an invalid tool
// output in DEGRADE mode (safe_mode "skip_writes": only kRead tools).
// A tool that says nothing about its effects counts as kWrite: absence of a
// signal is never evidence that a tool is harmless.
//
// Thread-safe: all functions are pure.
#ifndef TOOLGATE_CORE_OUTPUT_SIDE_EFFECT_H_
#define TOOLGATE_CORE_OUTPUT_SIDE_EFFECT_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"

namespace toolgate {
namespace output {

enum class SideEffect {
  kRead,         // Changes nothing.
  kWrite,        // Creates or updates state.
  kDestructive,  // Deletes or overwrites state irreversibly.
};

// Maps MCP tool annotations onto a side-effect class:
//   - not an object (absent, null, ...)            -> kWrite
//   - destructiveHint exactly boolean true          -> kDestructive
//     (also when readOnlyHint is true: contradictory hints take the safe side)
//   - readOnlyHint exactly boolean true             -> kRead
//   - anything else (missing, false, "true", 1)     -> kWrite
SideEffect SideEffectFromMcpAnnotations(const Json& annotations);

// Parses the toolgate manifest's side_effect field: exactly "read", "write"
// or "destructive" (lowercase). Anything else is INVALID_ARGUMENT; the
// manifest compiler should refuse the manifest rather than guess.
absl::StatusOr<SideEffect> ParseSideEffect(absl::string_view name);

// "read", "write" or "destructive".
absl::string_view SideEffectName(SideEffect effect);

// True only for kRead: the tools an agent may call under safe_mode
// "skip_writes" or once a run's OutputHealthWindow is read_only.
bool AllowedWhenReadOnly(SideEffect effect);

}  // namespace output
}  // namespace toolgate

#endif  // TOOLGATE_CORE_OUTPUT_SIDE_EFFECT_H_
