#include "core/gate/gate.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace toolgate {
namespace {

Violation FromReadError(const ReadError& e, absl::string_view tool,
                        int call_index) {
  Violation v;
  v.code = e.code;
  v.tool = std::string(tool);
  v.pointer = e.pointer;
  v.message = e.message;
  v.call_index = call_index;
  return v;
}

Violation UnknownTool(const Snapshot& snapshot, const std::string& name,
                      int call_index) {
  Violation v;
  v.code = "unknown_tool";
  v.tool = name;
  v.keyword = "name";
  v.received = TruncatedJson(Json(name));
  const std::vector<std::string> near = snapshot.NearestToolNames(name);
  v.expected = near.empty()
                   ? absl::StrCat("one of: ",
                                  absl::StrJoin(snapshot.tool_names(), " | "))
                   : absl::StrCat("one of: ", absl::StrJoin(near, " | "));
  v.message =
      near.empty()
          ? absl::StrCat("no tool named \"", name, "\" in this snapshot")
          : absl::StrCat("no tool named \"", name, "\"; did you mean \"",
                         near.front(), "\"?");
  v.call_index = call_index;
  return v;
}

void CheckArguments(const CheckedCall& call, int index,
                    const GateOptions& options, std::vector<Violation>* out,
                    bool* valid) {
  std::vector<schema::SchemaViolation> found;
  *valid = call.tool->input->Validate(call.raw.arguments,
                                      schema::ValidationMode::kAllErrors,
                                      options.max_violations_per_call, &found);
  if (*valid) return;
  if (found.empty()) {
    // The engine said invalid without saying why: still a reject.
    found.push_back(schema::SchemaViolation{
        "", "", "", "", "", "arguments do not match the schema"});
  }
  for (schema::SchemaViolation& f : found) {
    Violation v;
    v.code = "invalid_arguments";
    v.tool = call.raw.name;
    v.pointer = std::move(f.instance_pointer);
    v.schema_pointer = std::move(f.schema_pointer);
    v.keyword = std::move(f.keyword);
    v.expected = std::move(f.expected);
    v.received = std::move(f.received);
    v.message = std::move(f.message);
    v.call_index = index;
    out->push_back(std::move(v));
  }
}

}  // namespace

absl::string_view DecisionName(Decision d) {
  switch (d) {
    case Decision::kAllow:
      return "ALLOW";
    case Decision::kReject:
      return "REJECT";
    case Decision::kNeedsApproval:
      return "NEEDS_APPROVAL";
    case Decision::kStop:
      return "STOP";
  }
  return "REJECT";
}

GateResult CheckToolCalls(const Snapshot& snapshot, RawCalls calls,
                          const GateOptions& options) {
  GateResult result;
  if (!calls.error.ok()) {
    result.violations.push_back(FromReadError(calls.error, "", -1));
    return result;  // kReject
  }
  if (calls.calls.empty()) {
    result.violations.push_back(FromReadError(
        ReadError{"no_tool_call", "", "the output contains no tool call"}, "",
        -1));
    return result;
  }
  bool all_valid = true;
  bool needs_approval = false;
  for (size_t i = 0; i < calls.calls.size(); ++i) {
    CheckedCall checked;
    checked.raw = std::move(calls.calls[i]);
    const int index = static_cast<int>(i);
    if (!checked.raw.error.ok()) {
      result.violations.push_back(
          FromReadError(checked.raw.error, checked.raw.name, index));
    } else if ((checked.tool = snapshot.FindTool(checked.raw.name)) ==
               nullptr) {
      result.violations.push_back(
          UnknownTool(snapshot, checked.raw.name, index));
    } else {
      CheckArguments(checked, index, options, &result.violations,
                     &checked.valid);
      needs_approval |=
          checked.valid && checked.tool->spec.policy.requires_approval;
    }
    all_valid &= checked.valid;
    result.calls.push_back(std::move(checked));
  }
  if (!all_valid) return result;  // kReject
  result.decision =
      needs_approval ? Decision::kNeedsApproval : Decision::kAllow;
  if (needs_approval) result.stop_reason = "requires_approval";
  return result;
}

}  // namespace toolgate
