#include "core/gate/resolve_tools.h"

#include <string>
#include <utility>
#include <vector>

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

// Why the output as a whole yields no call to resolve, or OK.
ReadError OutputError(const RawCalls& calls) {
  if (!calls.error.ok()) return calls.error;
  if (calls.calls.empty()) {
    return ReadError{"no_tool_call", "", "the output contains no tool call"};
  }
  return ReadError();
}

}  // namespace

void ResolveTools(const Snapshot& snapshot, RawCalls&& calls,
                  const GateOptions& options, GateResult* result) {
  if (ReadError e = OutputError(calls); !e.ok()) {
    result->violations.push_back(FromReadError(e, "", -1));
    return;
  }
  if (calls.calls.size() > options.max_calls_per_output) {
    result->violations.push_back(
        TooManyCalls(calls.calls.size(), options.max_calls_per_output));
    return;
  }
  size_t unknown = 0;
  for (size_t i = 0; i < calls.calls.size(); ++i) {
    if (!StillWaiting(options, result)) return;
    CheckedCall checked;
    checked.raw = std::move(calls.calls[i]);
    const int index = static_cast<int>(i);
    if (!checked.raw.error.ok()) {
      result->violations.push_back(FromReadError(
          checked.raw.error, EchoedName(checked.raw.name), index));
    } else if ((checked.tool = snapshot.FindTool(checked.raw.name)) ==
               nullptr) {
      const bool suggest = unknown++ < options.max_suggested_calls;
      result->violations.push_back(
          UnknownTool(snapshot, checked.raw.name, index, suggest, options));
    }
    result->calls.push_back(std::move(checked));
  }
}

}  // namespace toolgate
