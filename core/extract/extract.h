// Reading tool calls out of model text.
//
// Open-weight and fallback models write tool calls in prose instead of
// native tool_calls, and reasoning models scatter example JSON through their
// thinking. ExtractToolCalls finds every candidate (see scan.h for what is
// recognised and how a construct claims its extent) and then:
//
//   * the LAST candidate is authoritative; earlier ones are scratchpad. When
//     the last candidate is a <tool_call> tag, the calls are the run of
//     tags it ends, separated only by white space (several tags are
//     parallel calls; a tag in the prose before them is scratchpad). An example
//     in the reasoning is never executed, and an earlier valid call never
//     stands in for a later broken one;
//   * text cut off anywhere (an unclosed tag, fence, <think>, object or ReAct
//     call, or a partial delimiter at the very end) is `truncated_output`,
//     even when an earlier candidate is complete: output that was cut off is
//     never used, and a call that was cut off is never executed;
//   * a call is {"name": non-empty string, "arguments": object} with no other
//     member; "arguments" may instead be a string holding a JSON object (as
//     OpenAI writes it), which must parse strictly to an object. ReAct calls
//     take the name from the Action line and the arguments from the input;
//   * a fence-like line after the last candidate (a ```jsonc, ```python,
//     indented or reasoning block, one in a block quote, list item or HTML
//     comment, one after a lone "\r" line ending) is `trailing_code_block`:
//     the text ends in something not read, so the last candidate may not
//     be the answer. A fenced call CommonMark does not read as that code
//     block (inside an HTML comment, say) is no candidate (see scan.h);
//   * nothing found is `no_tool_call`, never an empty success.
//
// Ambiguity that text alone cannot settle: output cut off exactly after a
// complete call (for example between two parallel tags, or inside prose
// after the call) is indistinguishable from output that ended there. The
// caller must treat a provider finish reason of "length"/"max_tokens" as
// truncated_output; this function cannot see it.
//
// Failures are values (ExtractionResult::error), never Status: they feed
// decisions. Thread-safety: pure function, safe from any thread.
#ifndef TOOLGATE_CORE_EXTRACT_EXTRACT_H_
#define TOOLGATE_CORE_EXTRACT_EXTRACT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/extract/scan.h"
#include "core/json/strict_json.h"
#include "core/repair/repair.h"

namespace toolgate {
namespace extract {

// Stable failure codes.
inline constexpr absl::string_view kNoToolCall = "no_tool_call";
inline constexpr absl::string_view kTruncatedOutput = "truncated_output";
inline constexpr absl::string_view kNotAToolCall = "not_a_tool_call";
inline constexpr absl::string_view kTrailingCodeBlock = "trailing_code_block";
// Codes shared with the strict parser (core/json/strict_json.h).
using ::toolgate::kDuplicateKey;
using ::toolgate::kInputTooLarge;
using ::toolgate::kInvalidJson;
using ::toolgate::kNestingTooDeep;
using ::toolgate::kNumberOutOfRange;

struct ExtractLimits {
  size_t max_input_bytes = 200000;
  // For each candidate's JSON (and an "arguments" string's inner JSON).
  JsonLimits json;
};

struct ExtractedCall {
  std::string id;  // The call id a format carries (Mistral's), else empty.
  std::string name;
  Json arguments;  // Always an object.
  CallSource source = CallSource::kBareObject;
  absl::string_view source_name() const { return CallSourceName(source); }
  int candidates_seen = 0;            // Candidates in the whole text.
  std::vector<std::string> repairs;   // Empty under STRICT.
  bool arguments_was_string = false;  // OpenAI-style string arguments.
};

struct ExtractionError {
  std::string code;     // One of the codes above.
  std::string pointer;  // JSON Pointer inside the failing call's JSON.
  std::string message;
  int call_index = -1;  // Index within the authoritative calls, -1 if none.
};

struct ExtractionResult {
  bool ok() const { return error.code.empty(); }

  std::vector<ExtractedCall> calls;  // Non-empty exactly when ok().
  int candidates_seen = 0;
  ExtractionError error;
};

ExtractionResult ExtractToolCalls(
    absl::string_view text,
    repair::RepairPolicy policy = repair::RepairPolicy::kStrict,
    const ExtractLimits& limits = ExtractLimits());

// ExtractToolCalls is these two steps; the engine runs them as separate
// stages of its pipeline (core/engine/validate_tool_call.cc).
//
// Step 1, the candidates: the authoritative ones of `text` (the last
// candidate, or the run of tags it ends). An output too large, cut off,
// without a candidate or ending in an unread code block fails as a whole:
// `error` is set and no candidate is authoritative.
struct CandidateSet {
  bool ok() const { return error.code.empty(); }
  // scan.candidates[first, end) are authoritative; they point into `text`.
  absl::Span<const Candidate> authoritative() const {
    return absl::MakeConstSpan(scan.candidates).subspan(first);
  }

  ScanResult scan;
  size_t first = 0;
  int candidates_seen = 0;  // Candidates in the whole text.
  ExtractionError error;    // call_index is -1: the output as a whole.
};
CandidateSet FindCandidates(absl::string_view text,
                            const ExtractLimits& limits = ExtractLimits());

// Step 2, one candidate read as a call: its JSON parsed under `policy`
// (strictly, and under kSyntaxRepair rewritten and parsed strictly again:
// core/repair), then its shape checked. The error's call_index is left for
// the caller to set; `call->candidates_seen` too.
ExtractionError ReadCandidate(const Candidate& candidate,
                              repair::RepairPolicy policy,
                              const JsonLimits& limits, ExtractedCall* call);

}  // namespace extract
}  // namespace toolgate

#endif  // TOOLGATE_CORE_EXTRACT_EXTRACT_H_
