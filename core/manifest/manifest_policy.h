// Internal to core/manifest: a tool's `policy` member and the policy
// members of `settings` (toolgate format; docs/policy.md), read strictly
// and written back in canonical form.
#ifndef TOOLGATE_CORE_MANIFEST_MANIFEST_POLICY_H_
#define TOOLGATE_CORE_MANIFEST_MANIFEST_POLICY_H_

#include <string>

#include "absl/status/status.h"
#include "core/json/strict_json.h"
#include "core/manifest/manifest.h"
#include "core/manifest/manifest_fields.h"

namespace toolgate {
namespace manifest_internal {

// Reads `policy` of the tool at `tool_pointer` into spec->policy; the
// effective requires_approval falls back on settings.require_approval_for
// for the tool's side effect.
absl::Status ReadToolPolicy(const Json& policy, const std::string& tool_pointer,
                            const RunSettings& settings, ToolSpec* spec);

// Reads settings' require_approval_for and max_calls_per_run_by_class.
absl::Status ReadPolicySettings(FieldReader& settings, RunSettings* out);

// policy.arguments of one tool; `p` reads its policy object.
absl::Status ReadArgumentRules(FieldReader& p, const Json& arguments,
                               const std::string& policy_pointer,
                               const std::string& tool, ArgumentPolicy* out);
Json ArgumentRuleToJson(const ArgumentRule& rule);

// A JSON Pointer into a call's arguments ("*" matches every item or
// member); refused naming `sub_pointer` under the policy object.
absl::Status CheckArgumentPointer(const FieldReader& r,
                                  const std::string& sub_pointer,
                                  absl::string_view pointer);

// Canonical forms: members at their defaults are left out, so manifests
// that use no policy keep the ids they had before these members existed.
Json ToolPolicyToJson(const ToolPolicy& policy);
void AddPolicySettings(const RunSettings& settings, Json* out);

}  // namespace manifest_internal
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MANIFEST_MANIFEST_POLICY_H_
