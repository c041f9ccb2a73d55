// Pattern checks on the strings inside a parsed tool output: text that
// addresses the model (prompt injection), and the walk over every string.
// Internal to core/output; the public API is core/output/output.h.
//
// All patterns are RE2 (linear time, whatever the input) compiled once on
// first use.
//
// Thread-safe: all functions are pure; the compiled patterns are immutable.
#ifndef TOOLGATE_CORE_OUTPUT_INTERNAL_STRING_SCAN_H_
#define TOOLGATE_CORE_OUTPUT_INTERNAL_STRING_SCAN_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"

namespace toolgate {
namespace output {
namespace internal {

struct PatternMatch {
  absl::string_view code;  // Stable snake_case name of the pattern.
  size_t start = 0;        // Byte offset of the match in the scanned text.
  size_t length = 0;
};

// FindMarkupInString (HTML markup, with an HTML parser) is in
// markup_scan.h.

// Finds text that addresses the model rather than carrying data. The
// patterns run on the text as text::NormalizeForScan
// (core/text/invisible_chars.h) leaves it: zero-width, format and control
// characters removed, other spaces and line breaks made plain. Offsets are
// into `text` as given. At most one match per code, in the order of the
// table:
//   instruction_override  "ignore/disregard/forget/override/bypass
//                         [all|previous|the|system ...] instructions|prompt|
//                         rules|guidelines", "new instructions:"
//   role_marker           a line starting "system:", "assistant:",
//                         "developer:" or "human:" ("user:" is too common in
//                         ordinary data to be a signal)
//   chat_template_token   <|im_start|>, <|im_end|>, <|endoftext|>,
//                         <|eot_id|>, <|start_header_id|>, [INST], <<SYS>> ...
//   tool_call_syntax      <tool_call>, <function_call>, <tool_use>,
//                         {"name": "...", "arguments": ...} (or
//                         "parameters" / "input" in place of "arguments"),
//                         "tool_calls": [
std::vector<PatternMatch> FindInjections(absl::string_view text);

// Calls `visit(pointer, text)` for every string in `root`: each string value
// and each object key (a key's pointer is its member's). Stops when `visit`
// returns false. Pointers are RFC 6901.
void ForEachString(
    const Json& root,
    const std::function<bool(const std::string& pointer,
                             const std::string& text)>& visit);

}  // namespace internal
}  // namespace output
}  // namespace toolgate

#endif  // TOOLGATE_CORE_OUTPUT_INTERNAL_STRING_SCAN_H_
