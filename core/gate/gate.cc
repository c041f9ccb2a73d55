#include "core/gate/gate.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/util/truncate.h"

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

// A name as it may be echoed: one that cannot be a tool name (longer than
// any tool may be) is cut, so a huge name is not copied into every field.
std::string EchoedName(const std::string& name) {
  return TruncateText(name, kMaxToolNameBytes);
}

std::string ListedTools(const Snapshot& snapshot, size_t max_listed) {
  const std::vector<std::string>& names = snapshot.tool_names();
  if (names.size() <= max_listed) {
    return absl::StrCat("one of: ", absl::StrJoin(names, " | "));
  }
  return absl::StrCat(
      "one of: ",
      absl::StrJoin(names.begin(), names.begin() + max_listed, " | "),
      " | ... (", names.size() - max_listed,
      " more; GetSnapshot lists every tool)");
}

Violation UnknownTool(const Snapshot& snapshot, const std::string& name,
                      int call_index, bool suggest,
                      const GateOptions& options) {
  Violation v;
  v.code = "unknown_tool";
  v.tool = EchoedName(name);
  v.keyword = "name";
  v.received = TruncatedJson(Json(v.tool));
  const std::vector<std::string> near =
      suggest ? snapshot.NearestToolNames(name, 3, options.cancel)
              : std::vector<std::string>();
  v.expected = near.empty()
                   ? ListedTools(snapshot, options.max_listed_tools)
                   : absl::StrCat("one of: ", absl::StrJoin(near, " | "));
  if (name.size() > kMaxToolNameBytes) {
    v.message = absl::StrCat("no tool named \"", v.tool, "\": the name is ",
                             name.size(), " bytes; tool names are at most ",
                             kMaxToolNameBytes);
  } else if (near.empty()) {
    v.message = absl::StrCat("no tool named \"", name, "\" in this snapshot");
  } else {
    v.message = absl::StrCat("no tool named \"", name, "\"; did you mean \"",
                             near.front(), "\"?");
  }
  v.call_index = call_index;
  return v;
}

Violation TooManyCalls(size_t found, size_t max) {
  Violation v;
  v.code = "too_many_calls";
  v.expected = absl::StrCat("at most ", max, " tool calls in one output");
  v.received = absl::StrCat(found, " tool calls");
  v.message = absl::StrCat("the output has ", found, " tool calls; at most ",
                           max, " are checked per output, so none was");
  return v;
}

size_t TextBytes(const Violation& v) {
  return v.code.size() + v.tool.size() + v.pointer.size() + v.keyword.size() +
         v.expected.size() + v.received.size() + v.message.size() +
         v.schema_pointer.size();
}

// Keeps the first violations within both caps; the rest become a count.
void CapViolations(const GateOptions& options, std::vector<Violation>* all) {
  size_t bytes = 0;
  size_t kept = 0;
  while (kept < all->size() && kept < options.max_violations) {
    bytes += TextBytes((*all)[kept]);
    // The first violation is always kept: a reject says why.
    if (kept > 0 && bytes > options.max_violation_bytes) break;
    ++kept;
  }
  if (kept == all->size()) return;
  const size_t dropped = all->size() - kept;
  all->resize(kept);
  Violation v;
  v.code = "too_many_violations";
  v.message = absl::StrCat(
      dropped, " more violations not listed (at most ", options.max_violations,
      " or ", options.max_violation_bytes, " bytes of them per response)");
  all->push_back(std::move(v));
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
  if (calls.calls.size() > options.max_calls_per_output) {
    result.violations.push_back(
        TooManyCalls(calls.calls.size(), options.max_calls_per_output));
    return result;
  }
  bool all_valid = true;
  bool needs_approval = false;
  size_t unknown = 0;
  for (size_t i = 0; i < calls.calls.size(); ++i) {
    if (options.cancel != nullptr) {
      result.interrupted = options.cancel->Check();
      if (!result.interrupted.ok()) return result;  // kReject, undecided.
    }
    CheckedCall checked;
    checked.raw = std::move(calls.calls[i]);
    const int index = static_cast<int>(i);
    if (!checked.raw.error.ok()) {
      result.violations.push_back(FromReadError(
          checked.raw.error, EchoedName(checked.raw.name), index));
    } else if ((checked.tool = snapshot.FindTool(checked.raw.name)) ==
               nullptr) {
      const bool suggest = unknown++ < options.max_suggested_calls;
      result.violations.push_back(
          UnknownTool(snapshot, checked.raw.name, index, suggest, options));
    } else {
      CheckArguments(checked, index, options, &result.violations,
                     &checked.valid);
      needs_approval |=
          checked.valid && checked.tool->spec.policy.requires_approval;
    }
    all_valid &= checked.valid;
    result.calls.push_back(std::move(checked));
  }
  if (options.cancel != nullptr) {
    result.interrupted = options.cancel->Check();
    if (!result.interrupted.ok()) return result;
  }
  if (!all_valid) {
    CapViolations(options, &result.violations);
    return result;  // kReject
  }
  result.decision =
      needs_approval ? Decision::kNeedsApproval : Decision::kAllow;
  if (needs_approval) result.stop_reason = "requires_approval";
  return result;
}

}  // namespace toolgate
