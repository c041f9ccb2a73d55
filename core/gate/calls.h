// Tool calls as read from a model's output, before any schema check.
//
// Readers (native JSON here; text in core/extract) produce RawCalls; the
// gate then resolves and validates them. A call that could not be read
// carries an error code instead of arguments, so that nothing unreadable
// can slip through as an empty call.
//
// Thread-safety: pure functions over values.
#ifndef TOOLGATE_CORE_GATE_CALLS_H_
#define TOOLGATE_CORE_GATE_CALLS_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"

namespace toolgate {

// Why something could not be read: a stable snake_case code, the JSON
// Pointer of the failing part (inside the arguments when the arguments were
// at fault, otherwise inside the submitted output) and a sentence.
struct ReadError {
  std::string code;
  std::string pointer;
  std::string message;

  bool ok() const { return code.empty(); }
};

struct RawCall {
  std::string id;
  std::string name;
  // openai_tool_calls, anthropic_tool_use, mcp_call, or a text path.
  std::string source;
  Json arguments;  // Meaningful only when error.ok().
  std::vector<std::string> repairs;
  int candidates_seen = 1;
  ReadError error;
  // Pointers of the values policy.coerce turned into their type.
  std::vector<std::string> coercions;
  // Pointers of the text values a `text` rule's strip_html changed.
  std::vector<std::string> sanitizations;
};

struct RawCalls {
  std::vector<RawCall> calls;
  ReadError error;  // The output as a whole could not be read.
};

// Reads provider-native output: an OpenAI assistant message or bare
// tool_calls array, an Anthropic assistant message with tool_use blocks,
// or an MCP tools/call params object. OpenAI `arguments` strings are parsed
// strictly: "" is not {}. Output that holds anything else a runtime could
// run as a call (a second shape, a legacy function_call, a tool_use variant
// or unknown content block, call text in the content, a name with arguments
// elsewhere; see unchecked_calls.h) is refused whole as ambiguous_output.
// Output whose provider stop signal says it was cut, refused or failed
// (native_stop.h) is refused first, as its stream would be.
RawCalls ReadNativeCalls(absl::string_view native_json,
                         const JsonLimits& limits);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_GATE_CALLS_H_
