// Internal to core/gate: the common shapes of native output, read without
// building a JSON tree for them.
//
// ReadNativeCalls parses native output into a tree, detects its shape,
// searches the tree for calls it would leave unchecked (unchecked_calls.h)
// and then reads the calls: building, walking and freeing that tree was
// about a third of a native ValidateToolCall. Most native output has one
// of three plain shapes, which the readers here read in one strict pass
// (plain_scanner.h):
//  * an OpenAI assistant message: members that are inert values
//    (strings, null, booleans, [], short integers, objects of those) and
//    "tool_calls", a non-empty array of {"id"?, "type": "function",
//    "function": {"name", "arguments": string}}; "content" a string or
//    null;
//  * an Anthropic message: inert members and "content", an array of
//    tool_use blocks ({"type", "id"?, "name", "input": object}) and text,
//    thinking, redacted_thinking or refusal blocks of inert members, at
//    least one tool_use;
//  * MCP tools/call params: "name", "arguments" (an object) and inert
//    members.
// No key anywhere but a call's own may name a call or its arguments
// (IsCallKey), content text may not look like a call, and an object of
// arguments is parsed strictly on its own under the depth left for it. A
// provider's stop signal is read only at the top level, and only when it
// is an unescaped string that says complete (stop_reason "tool_use", ...:
// native_stop.h); any other, and any below the top, is the general
// reader's, which refuses the output for it.
// Anything else, or any doubt, returns nullopt: the caller then reads the
// output the general way, which decides it, so no output is decided here
// that the general reader would decide differently (plain_openai_test,
// plain_anthropic_mcp_test and call_gate_fuzzer hold them equal).
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_GATE_PLAIN_NATIVE_H_
#define TOOLGATE_CORE_GATE_PLAIN_NATIVE_H_

#include <optional>

#include "absl/strings/string_view.h"
#include "core/gate/calls.h"
#include "core/json/strict_json.h"

namespace toolgate {
namespace gate_internal {

std::optional<RawCalls> ReadPlainOpenAIMessage(absl::string_view text,
                                               const JsonLimits& limits);
std::optional<RawCalls> ReadPlainAnthropicMessage(absl::string_view text,
                                                  const JsonLimits& limits);
std::optional<RawCalls> ReadPlainMcpParams(absl::string_view text,
                                           const JsonLimits& limits);

// The first of the three readers to answer, told apart by a key each
// shape must hold.
std::optional<RawCalls> ReadPlainNative(absl::string_view text,
                                        const JsonLimits& limits);

// ReadNativeCalls without the plain path: the general reader, for tests.
RawCalls ReadNativeCallsGeneral(absl::string_view native_json,
                                const JsonLimits& limits);

// A call's "arguments" text, parsed strictly into call->arguments or
// turned into its error (shared by both readers).
void SetArgumentsFromText(absl::string_view text, const JsonLimits& limits,
                          RawCall* call);

}  // namespace gate_internal
}  // namespace toolgate

#endif  // TOOLGATE_CORE_GATE_PLAIN_NATIVE_H_
