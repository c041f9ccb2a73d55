// Internal to core/gate: the common OpenAI assistant message, read without
// building a JSON tree for it.
//
// ReadNativeCalls parses native output into a tree, detects its shape,
// searches the tree for calls it would leave unchecked (unchecked_calls.h)
// and then reads the calls: building, walking and freeing that tree was
// about a third of a native ValidateToolCall. Most native output is an
// OpenAI assistant message of one plain shape: an object whose members
// are strings, null, true, false or empty arrays, and "tool_calls", a
// non-empty array of objects holding "type": "function", "function":
// {"name": string, "arguments": string} and optionally an "id" string.
// For that shape ReadPlainOpenAIMessage reads the bytes once, as strictly
// as ParseStrictJson, and returns what ReadNativeCalls would. Anything else
// (another shape, a member not listed, a repeated member, a number, a
// nested object or array, a key with an escape, a member that names a
// call or its arguments, content that looks like a call, a byte order
// mark, any error) returns nullopt: the caller then reads the output the
// general way, which decides it, so no output is decided here that the
// general reader would decide differently (plain_openai_test holds them
// equal on generated messages).
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_GATE_PLAIN_OPENAI_H_
#define TOOLGATE_CORE_GATE_PLAIN_OPENAI_H_

#include <optional>

#include "absl/strings/string_view.h"
#include "core/gate/calls.h"
#include "core/json/strict_json.h"

namespace toolgate {
namespace gate_internal {

std::optional<RawCalls> ReadPlainOpenAIMessage(absl::string_view text,
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

#endif  // TOOLGATE_CORE_GATE_PLAIN_OPENAI_H_
