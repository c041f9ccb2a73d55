#include "core/output/side_effect.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace toolgate {
namespace output {
namespace {

// True only for a member that is present and exactly the JSON literal true.
bool HintIsTrue(const Json& annotations, const char* name) {
  auto it = annotations.find(name);
  return it != annotations.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

SideEffect SideEffectFromMcpAnnotations(const Json& annotations) {
  if (!annotations.is_object()) return SideEffect::kWrite;
  if (HintIsTrue(annotations, "destructiveHint")) {
    return SideEffect::kDestructive;
  }
  if (HintIsTrue(annotations, "readOnlyHint")) return SideEffect::kRead;
  return SideEffect::kWrite;
}

absl::StatusOr<SideEffect> ParseSideEffect(absl::string_view name) {
  if (name == "read") return SideEffect::kRead;
  if (name == "write") return SideEffect::kWrite;
  if (name == "destructive") return SideEffect::kDestructive;
  return absl::InvalidArgumentError(
      absl::StrCat("side_effect must be read, write or destructive; got \"",
                   name, "\""));
}

absl::string_view SideEffectName(SideEffect effect) {
  switch (effect) {
    case SideEffect::kRead: return "read";
    case SideEffect::kWrite: return "write";
    case SideEffect::kDestructive: return "destructive";
  }
  return "write";
}

bool AllowedWhenReadOnly(SideEffect effect) {
  return effect == SideEffect::kRead;
}

}  // namespace output
}  // namespace toolgate
