// Reading an agent's verdict from its output (the ExtractVerdict RPC).
//
// The authoritative result is the LAST fenced JSON block of the envelope
// (backticks or tildes, info string empty or json; fences as in
// core/text/fences.h, and only where CommonMark reads the same code block:
// core/text/commonmark.h). It is parsed strictly (or repaired under
// SYNTAX_REPAIR, repairs reported) and validated against the result schema;
// its "verdict" member then maps to PASS, FAIL or REFUSED. Anything else is
// CONTRACT_STOP with a stable stop_reason:
//
//   envelope_too_large      the envelope exceeds the size cap
//   no_result_block         no fenced JSON block outside reasoning (a block
//                           inside an HTML comment or block is none)
//   unclosed_result_block   a fence never closes (or the text ends in a
//                           partial fence): the output was cut off, and an
//                           earlier block is never used instead
//   unclosed_reasoning      a <think> block never closes
//   result_block_not_last   another fence-like line (```jsonc, ```python,
//                           an indented fence, one in a block quote, a
//                           list item, an HTML comment or <think>, after a
//                           "\r" line ending) follows the last JSON block,
//                           or that block is not a code block for
//                           CommonMark: never read an earlier block as the
//                           answer
//   empty_result_block      the last block holds only whitespace
//   truncated_result_block  its JSON is cut off
//   unparseable_result_block  its JSON is malformed (or too deep, or has an
//                           out-of-range number)
//   duplicate_key           its JSON repeats a key
//   result_block_invalid    it fails the result schema, or is not an object
//                           whose "verdict" is exactly "pass", "fail" or
//                           "refused" (checked even when a custom schema
//                           does not constrain it)
//
// Never: falling back to an earlier block, scanning raw text for a verdict
// key (a verdict-shaped object outside a fence is ignored), or PASS on
// absence. Text inside <think>...</think> is reasoning and ignored, as in
// extraction (a "</think>" with no opener ends the reasoning).
//
// Thread-safety: all functions are safe to call from any thread; the
// default schema is compiled once, on first use.
#ifndef TOOLGATE_CORE_VERDICT_VERDICT_H_
#define TOOLGATE_CORE_VERDICT_VERDICT_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"
#include "core/repair/repair.h"
#include "core/schema/schema.h"

namespace toolgate {
namespace verdict {

enum class Outcome { kPass, kFail, kRefused, kContractStop };

// "PASS", "FAIL", "REFUSED", "CONTRACT_STOP".
absl::string_view OutcomeName(Outcome outcome);

inline constexpr absl::string_view kEnvelopeTooLarge = "envelope_too_large";
inline constexpr absl::string_view kNoResultBlock = "no_result_block";
inline constexpr absl::string_view kUnclosedResultBlock =
    "unclosed_result_block";
inline constexpr absl::string_view kUnclosedReasoning = "unclosed_reasoning";
inline constexpr absl::string_view kEmptyResultBlock = "empty_result_block";
inline constexpr absl::string_view kTruncatedResultBlock =
    "truncated_result_block";
inline constexpr absl::string_view kUnparseableResultBlock =
    "unparseable_result_block";
inline constexpr absl::string_view kDuplicateKey = "duplicate_key";
inline constexpr absl::string_view kResultBlockInvalid = "result_block_invalid";
inline constexpr absl::string_view kResultBlockNotLast = "result_block_not_last";

struct VerdictLimits {
  size_t max_envelope_bytes = 200000;
  JsonLimits json;            // For the result block.
  size_t max_violations = 20;  // Schema violations reported at most.
};

struct VerdictResult {
  // Defaults to a stop: an unfilled result is never a pass.
  Outcome outcome = Outcome::kContractStop;
  Json result;              // The validated block; null on CONTRACT_STOP.
  std::string result_json;  // Its canonical JSON; empty on CONTRACT_STOP.
  std::string stop_reason;  // Set exactly on CONTRACT_STOP.
  std::string message;      // One sentence on why, for humans.
  int blocks_found = 0;     // Fenced JSON blocks seen outside reasoning.
  std::vector<schema::SchemaViolation> violations;
  std::vector<std::string> repairs;
};

// The shipped default (schemas/result_block.schema.json, embedded at build
// time) as text, and compiled (once).
absl::string_view DefaultResultSchemaJson();
absl::StatusOr<std::shared_ptr<const schema::Schema>> DefaultResultSchema();

// Compiles an inline result schema; "" means the default. A schema that is
// not strict JSON or does not compile is INVALID_ARGUMENT: it is the
// caller's bug, not the agent's, so it is not reported as CONTRACT_STOP.
absl::StatusOr<std::shared_ptr<const schema::Schema>> CompileResultSchema(
    absl::string_view result_schema_json);

// Reads the verdict against a compiled schema. Pure decision: no Status.
VerdictResult ExtractVerdict(absl::string_view envelope,
                             const schema::Schema& result_schema,
                             repair::RepairPolicy policy,
                             const VerdictLimits& limits = VerdictLimits());

// Convenience: CompileResultSchema then ExtractVerdict. Callers verifying
// many envelopes against one schema should compile it once instead.
absl::StatusOr<VerdictResult> ExtractVerdict(
    absl::string_view envelope, absl::string_view result_schema_json,
    repair::RepairPolicy policy, const VerdictLimits& limits = VerdictLimits());

}  // namespace verdict
}  // namespace toolgate

#endif  // TOOLGATE_CORE_VERDICT_VERDICT_H_
