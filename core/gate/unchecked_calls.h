// Internal to core/gate: finding calls in native output that reading it
// would leave unchecked.
//
// ReadNativeCalls reads one shape (OpenAI tool_calls, Anthropic tool_use
// blocks, or MCP params). Anything else in the output that an executor or
// runtime could take for a call (a legacy function_call, a content block
// whose type is a variant of tool_use or that carries name and input, text
// holding a <tool_call> or call JSON, an object with a name and arguments
// anywhere outside the calls read) would then run unvalidated, so its mere
// presence refuses the output as ambiguous_output.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_GATE_UNCHECKED_CALLS_H_
#define TOOLGATE_CORE_GATE_UNCHECKED_CALLS_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "core/gate/calls.h"
#include "core/json/strict_json.h"

namespace toolgate {
namespace gate_internal {

// The shapes of native output, as ReadNativeCalls detects them.
enum class NativeShape {
  kNone,
  kOpenAIArray,    // A bare tool_calls array.
  kOpenAIMessage,  // An object with "tool_calls".
  kAnthropic,      // An object whose "content" is an array.
  kMcp,            // tools/call params: "name" and "arguments".
  kAmbiguous,      // Two of the above at once.
};

// Members that hold a call's arguments in one format or another: OpenAI's
// and MCP's "arguments", Anthropic's "input", Gemini's "args", the
// "parameters" of Llama's and Cohere's JSON calls.
inline constexpr absl::string_view kArgumentKeys[] = {"arguments", "input",
                                                      "args", "parameters"};

// Content blocks that never carry a call: text (its text is checked apart)
// and reasoning or refusals, which no runtime executes.
bool IsInertBlockType(absl::string_view type);

// The first thing in `doc`, read as `shape`, that could be a call but would
// not be read and checked, as an ambiguous_output error naming where it is;
// nullopt when every call-like part of `doc` is one that is read. `shape` is
// neither kNone nor kAmbiguous.
std::optional<ReadError> FindUncheckedCall(const Json& doc, NativeShape shape);

// Whether `text` (a message's content text) holds something a text-reading
// runtime could run as a call: a tool-call marker (<tool_call>,
// [TOOL_CALLS], <function=, <invoke, <|python_tag|>, "Action Input", ...,
// case-insensitive) or a JSON object (a "{" followed by a quoted key, or
// by an identifier and ":"). Sets `*what` to a phrase saying which.
bool TextLooksLikeCall(absl::string_view text, std::string* what);

}  // namespace gate_internal
}  // namespace toolgate

#endif  // TOOLGATE_CORE_GATE_UNCHECKED_CALLS_H_
