// What every declared format's reader shares (internal to
// core/extract/formats): where the call block starts, what may stand
// around it, the JSON spans inside it, and the errors it reports.
//
// The frame of a text output in a declared format:
//
//   [reasoning and prose] BLOCK [white space]
//
// Reasoning is <think>...</think> (skipped; a "</think>" with no opener
// discards everything before it, as chat templates prefill the opener).
// Families that allow prose before their block (Hermes, Mistral, Granite,
// DeepSeek) start it at their marker; the others (Llama 3 JSON, pythonic)
// at the first byte after reasoning and white space. A marker of any
// family (any case) in the prose, other than the block's own, is
// ambiguous_output; so is one after the block. Text cut off (an unclosed
// <think>, a partial marker at the end, a block missing its end) is
// truncated_output; anything else after the block is malformed_tool_call.
//
// Pointers in errors address the call list as JSON, [{"name",
// "arguments"}, ...]: "/1/arguments/items/0".
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_EXTRACT_FORMATS_FRAME_H_
#define TOOLGATE_CORE_EXTRACT_FORMATS_FRAME_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/extract/extract.h"
#include "core/extract/formats/formats.h"
#include "core/extract/text_format.h"
#include "core/repair/repair.h"

namespace toolgate {
namespace extract {
namespace formats {

inline constexpr size_t kNpos = absl::string_view::npos;

// The markers that open a family's calls (and two that open other
// runtimes' calls). DeepSeek's use U+FF5C and U+2581.
inline constexpr absl::string_view kHermesOpen = "<tool_call>";
inline constexpr absl::string_view kMistralOpen = "[TOOL_CALLS]";
inline constexpr absl::string_view kLlamaOpen = "<|python_tag|>";
inline constexpr absl::string_view kPythonOpen = "<|python_start|>";
inline constexpr absl::string_view kPythonClose = "<|python_end|>";
inline constexpr absl::string_view kGraniteOpen = "<|tool_call|>";
inline constexpr absl::string_view kDeepSeekCallsBegin =
    "<\xEF\xBD\x9Ctool\xE2\x96\x81""calls\xE2\x96\x81""begin\xEF\xBD\x9C>";
inline constexpr absl::string_view kDeepSeekCallsEnd =
    "<\xEF\xBD\x9Ctool\xE2\x96\x81""calls\xE2\x96\x81""end\xEF\xBD\x9C>";
inline constexpr absl::string_view kDeepSeekCallBegin =
    "<\xEF\xBD\x9Ctool\xE2\x96\x81""call\xE2\x96\x81""begin\xEF\xBD\x9C>";
inline constexpr absl::string_view kDeepSeekCallEnd =
    "<\xEF\xBD\x9Ctool\xE2\x96\x81""call\xE2\x96\x81""end\xEF\xBD\x9C>";
inline constexpr absl::string_view kDeepSeekSep =
    "<\xEF\xBD\x9Ctool\xE2\x96\x81sep\xEF\xBD\x9C>";

struct ReadOptions {
  repair::RepairPolicy policy = repair::RepairPolicy::kStrict;
  JsonLimits json;
};

// A family's block as read from `begin`: its calls and where it ends, or
// the error that refuses the whole output.
struct Block {
  size_t end = 0;
  std::vector<ExtractedCall> calls;
  ExtractionError error;
};
using BlockReader = Block (*)(absl::string_view text, size_t begin,
                              const ReadOptions& options);

struct Family {
  TextFormat format;
  CallSource source;
  absl::string_view marker;  // Its own opening marker.
  bool prose_before;         // Prose may precede the marker.
  char bare_start;           // Without prose: a block may open here too.
  BlockReader read;
};

// The whole frame: reasoning, prose, the block, what follows it.
ExtractionResult ReadFramed(absl::string_view text, const Family& family,
                            const ReadOptions& options, size_t max_bytes);

// Helpers for the readers.
ExtractionError Error(absl::string_view code, std::string pointer,
                      std::string message);
Block Fail(absl::string_view code, std::string pointer, std::string message);
// The strict parser's code as the text path reports it (truncated_json is
// truncated_output, empty_input invalid_json).
std::string MapJsonCode(absl::string_view code);
size_t SkipSpace(absl::string_view text, size_t pos);
bool At(absl::string_view text, size_t pos, absl::string_view token);
// `token` at `pos`: kMatch; the text ends in a proper prefix of it: kCut;
// otherwise kNo.
enum class Expect { kMatch, kCut, kNo };
Expect ExpectAt(absl::string_view text, size_t pos, absl::string_view token);

// No call marker of any family (any case) and no "<|python_end|>" in
// text[begin, end), the calls' own text: otherwise ambiguous_output.
// Runtimes strip or split on those markers wherever they stand, inside a
// string argument too (vLLM's Mistral parser deletes every
// "[TOOL_CALLS]", its Llama 4 pythonic parser every "<|python_end|>"), so
// they would run arguments other than the ones read here.
ExtractionError NoMarkerWithin(absl::string_view text, size_t begin,
                               size_t end);

// The bracketed JSON value opening at `pos` ('{' or '['), spanned by
// bracket depth with strings and comments skipped (core/repair/lexer.h):
// its end, or npos when it runs to the end of the text (cut off).
size_t JsonSpanEnd(absl::string_view text, size_t pos);

// One JSON value read under the policy; errors carry `pointer_prefix`
// before the parser's pointer.
struct JsonValue {
  Json value;
  std::vector<std::string> repairs;
  ExtractionError error;
};
JsonValue ParseJsonValue(absl::string_view json, const ReadOptions& options,
                         absl::string_view pointer_prefix);

// A call object {"name", <args_key>, ["id"]}: exactly those members,
// a non-empty string name, an object for the arguments (under "arguments",
// or for Llama 3 "parameters" or "arguments" but not both), and for
// Mistral an optional id of nine ASCII letters and digits. `pointer`
// addresses the object; its name and arguments are moved into `call`.
// (Hermes tags are read by extract.h's ReadCandidate, exactly as the
// UNSPECIFIED path reads them.)
struct CallShape {
  bool parameters = false;  // Llama 3: "parameters" (or "arguments").
  bool id = false;          // Mistral: an optional "id".
};
ExtractionError ReadCallObject(Json& value, const CallShape& shape,
                               const std::string& pointer,
                               ExtractedCall* call);

}  // namespace formats
}  // namespace extract
}  // namespace toolgate

#endif  // TOOLGATE_CORE_EXTRACT_FORMATS_FRAME_H_
