// Finding candidate tool calls (and result blocks) in model text.
//
// Shared by ExtractToolCalls and ExtractVerdict; most callers want those.
//
// One left-to-right pass. A construct claims its whole extent, so the object
// inside a tag, a fence or a ReAct input is not counted a second time. At a
// given position the paths are tried in the order tool_call tag, fenced
// block, ReAct, bare object. What is recognised:
//   * <tool_call>...</tool_call>: the closing tag is searched outside
//     double-quoted JSON strings, so an argument may contain "</tool_call>";
//   * fenced blocks (see core/text/fences.h): info string empty or json is
//     a candidate; any other info string masks its content (a ```python
//     block holding a dict is not a call). A fenced candidate is then kept
//     only if CommonMark reads the same code block there
//     (core/text/commonmark.h, with reasoning taken out): one inside an
//     HTML comment or block, or one that another container or code block
//     swallows or ends elsewhere, is dropped (counted in unread_blocks);
//   * ReAct: a line "Action: <name>", then (after blank lines) a line
//     "Action Input: <JSON>", the JSON inline, on the following lines, or
//     in a fence right after;
//   * a bare object: "{" followed by a quoted key, or an identifier and
//     ":" (so "{x}" or "{ in prose" is skipped), spanned by bracket depth
//     with strings and comments skipped (repair/lexer.h rules). A "[" right
//     before such an object starts an array candidate instead, so a list of
//     calls is never read as its last element. A span still open at a fence
//     line or a <tool_call>/<think> tag is abandoned there (a defect), so an
//     unbalanced "{" in prose cannot swallow a later call.
// Reasoning: <think>...</think> is skipped. A "</think>" with no opener
// (chat templates prefill the opener) discards every candidate before it.
//
// Lines end at "\n", "\r\n" or a lone "\r" (core/text/lines.h).
//
// Anything fence-like after the last candidate (see last_fence_line) is
// for callers to refuse: a ```jsonc, indented, quoted, listed or commented
// block after an example ```json block must not let the example stand as
// the answer.
//
// Truncation: a tag, fence, <think>, ReAct call or object still open at the
// end of the text, or text ending in a partial "<tool_call>", "<think>" or
// fence opener ("`", "``"), sets `truncation`: the output was cut off and
// nothing in it may be used.
//
// Thread-safety: pure function.
#ifndef TOOLGATE_CORE_EXTRACT_SCAN_H_
#define TOOLGATE_CORE_EXTRACT_SCAN_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace toolgate {
namespace extract {

// The first four are today's shapes (TextFormat::kUnspecified); the rest
// name a declared format's reader (core/extract/formats/formats.h).
enum class CallSource {
  kToolCallTag,
  kFencedBlock,
  kReact,
  kBareObject,
  kHermes,
  kMistral,
  kLlama3Json,
  kPythonic,
  kGranite,
  kDeepSeekV3,
};

// "tool_call_tag", "fenced_block", "react", "bare_object"; a declared
// format's name ("hermes", "mistral", "llama3_json", "pythonic",
// "granite", "deepseek_v3").
absl::string_view CallSourceName(CallSource source);

struct Candidate {
  CallSource source = CallSource::kBareObject;
  size_t begin = 0;  // Extent of the whole construct in the text.
  size_t end = 0;
  absl::string_view json;  // The JSON text (ReAct: the Action Input).
  std::string react_name;  // ReAct only: the Action line, trimmed.
  // Non-empty when the construct is malformed but not cut off (an object
  // abandoned at a fence, an Action with no Action Input): an extraction
  // code and a sentence.
  std::string defect_code;
  std::string defect_message;
  // The code fence the JSON was read from (a fenced block, or a ReAct
  // input in a fence): its opening line and the end of its closing line.
  size_t fence_begin = absl::string_view::npos;
  size_t fence_end = 0;
};

enum class Truncation {
  kNone,
  kUnclosedTag,
  kUnclosedFence,
  kUnclosedReasoning,
  kUnclosedReact,
  kUnclosedObject,
  kPartialFence,  // Text ends in "`" or "``" at a line start.
  kPartialTag,    // Text ends in a prefix of <tool_call> or <think>.
};

struct ScanOptions {
  bool tags = true;
  bool react = true;
  bool bare_objects = true;
};

struct ScanResult {
  std::vector<Candidate> candidates;  // Document order.
  // Start of the last line that might open a code fence in any context
  // (core/text/fences.h IsFenceLikeLine: indented, non-JSON, reasoning
  // fences and fences in block quotes, list items or HTML included), npos
  // when none. A fence-like line after the authoritative candidate means
  // the text ends in a block toolgate does not read, so the candidate may
  // not be the model's final word.
  size_t last_fence_line = absl::string_view::npos;
  // Fenced JSON blocks dropped because CommonMark does not read them as
  // code blocks there.
  int unread_blocks = 0;
  Truncation truncation = Truncation::kNone;
  std::string truncation_message;
};

// `text` must outlive the result (candidates point into it).
ScanResult ScanCandidates(absl::string_view text,
                          const ScanOptions& options = ScanOptions());

}  // namespace extract
}  // namespace toolgate

#endif  // TOOLGATE_CORE_EXTRACT_SCAN_H_
