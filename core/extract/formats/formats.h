// Reading tool calls written in a declared model family's own syntax.
//
// A run or a request may declare the family its model belongs to
// (TextFormat, core/extract/text_format.h); its text output is then read
// by that family's grammar and nothing else: text in another shape is
// refused, never read by a fallback. Each family has one small reader
// (formats_internal.h); what they share (reasoning skipping, the prose
// rule, markers of other families, truncation, the JSON spans) is the
// frame (frame.h). docs/formats.md lists every grammar with an example
// and the code each refusal gets:
//
//   hermes       <tool_call>{"name", "arguments"}</tool_call>, several
//                separated by white space; prose may come before
//   mistral      [TOOL_CALLS][{"name", "arguments", "id"?}, ...]; prose
//                may come before; the id becomes the call id
//   llama3_json  <|python_tag|>{"name", "parameters"}; {...}: the tag is
//                optional, nothing comes before it
//   pythonic     [n1(a=1), pkg.n2(b='x')]: Python call syntax with
//                keyword arguments and literals only (pythonic.h), nothing
//                before it (optionally within <|python_start|> ...
//                <|python_end|>)
//   granite      <|tool_call|>[{"name", "arguments"}, ...]; prose may come
//                before
//   deepseek_v3  <｜tool▁calls▁begin｜> calls <｜tool▁calls▁end｜>, each
//                <｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json
//                {...}\n```<｜tool▁call▁end｜>; prose may come before
//
// In every format: a cut-off block (a missing closer, a dangling separator,
// a partial marker) is truncated_output; a second block, or any family's
// marker beside the block, is ambiguous_output; anything else after the
// block is malformed_tool_call; JSON is read under the repair policy as
// the UNSPECIFIED path reads it. Output cut off exactly after a complete
// call cannot be told from output that ended there where the family has no
// closing token (Hermes tags, Llama's ';' list): as for today's text path,
// a provider finish reason of length/max_tokens must be treated as a
// reject by the runtime.
//
// Thread-safety: pure function.
#ifndef TOOLGATE_CORE_EXTRACT_FORMATS_FORMATS_H_
#define TOOLGATE_CORE_EXTRACT_FORMATS_FORMATS_H_

#include "absl/strings/string_view.h"
#include "core/extract/extract.h"
#include "core/extract/text_format.h"
#include "core/repair/repair.h"

namespace toolgate {
namespace extract {

// Codes besides extract.h's (the strict parser's codes also occur).
inline constexpr absl::string_view kAmbiguousOutput = "ambiguous_output";
inline constexpr absl::string_view kMalformedToolCall = "malformed_tool_call";
// Valid Python the pythonic grammar does not read, on purpose (hex,
// 1_000, complex, bytes, sets, string prefixes other than u, implicit
// concatenation, \N{...}, surrogate escapes, comments, non-ASCII names).
inline constexpr absl::string_view kUnsupportedSyntax = "unsupported_syntax";

// `format` must be a declared format (kDeclaredFormats); anything else is
// refused as no_tool_call, never read as kUnspecified.
ExtractionResult ReadDeclaredFormat(
    absl::string_view text, TextFormat format,
    repair::RepairPolicy policy = repair::RepairPolicy::kStrict,
    const ExtractLimits& limits = ExtractLimits());

}  // namespace extract
}  // namespace toolgate

#endif  // TOOLGATE_CORE_EXTRACT_FORMATS_FORMATS_H_
