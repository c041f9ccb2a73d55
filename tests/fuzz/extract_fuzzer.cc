// ExtractToolCalls on arbitrary model text, under both policies.
//
// Invariants (extract.h):
//  * ok() exactly when there are calls; a failure carries a documented code;
//  * every call has a non-empty name and object arguments whose canonical
//    JSON re-parses strictly to the same value; STRICT reports no repairs;
//  * repair never changes a strict success: text STRICT reads is read
//    identically (same calls, no repairs) under SYNTAX_REPAIR, and text
//    SYNTAX_REPAIR refuses is refused under STRICT too;
//  * output cut off is never used: the text followed by an unclosed tag,
//    fence or object is refused;
//  * an earlier valid call never stands in for a later broken one: a
//    complete call placed before text that fails (other than for finding
//    nothing) still fails, and before text that succeeds changes nothing
//    about the calls read from it (they stay the last calls);
//  * where CommonMark's fences are read from the fence lines alone
//    (core/text/commonmark_top_level.cc), the full block parser reads the
//    same fences and trusts the same extent.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "core/extract/extract.h"
#include "core/text/commonmark_parser.h"
#include "tests/fuzz/fuzz_support.h"

namespace toolgate {
namespace {

using extract::ExtractedCall;
using extract::ExtractionResult;
using repair::RepairPolicy;

const char* PolicyName(RepairPolicy policy) {
  return policy == RepairPolicy::kStrict ? "STRICT" : "SYNTAX_REPAIR";
}

void CheckResult(const ExtractionResult& r, RepairPolicy policy) {
  static const std::set<std::string>* const kCodes = new std::set<std::string>{
      "no_tool_call",        "truncated_output",    "not_a_tool_call",
      "trailing_code_block", "invalid_json",        "duplicate_key",
      "nesting_too_deep",    "number_out_of_range", "number_inexact",
      "input_too_large"};
  FUZZ_CHECK(r.ok() == !r.calls.empty(), "%s: ok()=%d with %zu calls",
             PolicyName(policy), r.ok(), r.calls.size());
  if (!r.ok()) {
    FUZZ_CHECK(kCodes->count(r.error.code) == 1, "%s: undocumented code \"%s\"",
               PolicyName(policy), r.error.code.c_str());
    return;
  }
  FUZZ_CHECK(r.candidates_seen >= static_cast<int>(r.calls.size()),
             "%s: %zu calls from %d candidates", PolicyName(policy),
             r.calls.size(), r.candidates_seen);
  for (const ExtractedCall& call : r.calls) {
    FUZZ_CHECK(!call.name.empty(), "%s: a call with an empty name",
               PolicyName(policy));
    FUZZ_CHECK(call.arguments.is_object(), "%s: arguments of %s are %s",
               PolicyName(policy), call.name.c_str(),
               std::string(JsonTypeName(call.arguments)).c_str());
    FUZZ_CHECK(policy != RepairPolicy::kStrict || call.repairs.empty(),
               "STRICT reported the repair %s", call.repairs[0].c_str());
    fuzz::CheckCanonicalRoundTrip(call.arguments, "extracted arguments");
  }
}

bool SameCall(const ExtractedCall& a, const ExtractedCall& b) {
  return a.name == b.name && a.arguments == b.arguments && a.source == b.source;
}

// The calls of `tail` are the last calls of `whole`.
bool EndsWithCalls(const ExtractionResult& whole,
                   const ExtractionResult& tail) {
  if (whole.calls.size() < tail.calls.size()) return false;
  const size_t offset = whole.calls.size() - tail.calls.size();
  for (size_t i = 0; i < tail.calls.size(); ++i) {
    if (!SameCall(whole.calls[offset + i], tail.calls[i])) return false;
  }
  return true;
}

constexpr absl::string_view kCutOff[] = {
    "\n<tool_call>", "\n```json\n", "\n{\"name\": \"a\", \"arguments\": {"};
constexpr absl::string_view kEarlierCall =
    "<tool_call>{\"name\": \"earlier\", \"arguments\": {\"x\": "
    "1}}</tool_call>\n";

void CheckPolicy(absl::string_view text, RepairPolicy policy,
                 const ExtractionResult& r) {
  const std::string cut =
      std::string(text) + std::string(kCutOff[text.size() % 3]);
  const ExtractionResult cut_result = extract::ExtractToolCalls(cut, policy);
  FUZZ_CHECK(!cut_result.ok(),
             "%s: text that ends cut off is read as %zu call(s), the last "
             "named \"%s\"",
             PolicyName(policy), cut_result.calls.size(),
             cut_result.calls.back().name.c_str());

  const std::string prefixed = std::string(kEarlierCall) + std::string(text);
  const ExtractionResult p = extract::ExtractToolCalls(prefixed, policy);
  CheckResult(p, policy);
  if (r.ok()) {
    FUZZ_CHECK(p.ok() && EndsWithCalls(p, r),
               "%s: a complete call before the text changes the calls read "
               "from it (%s)",
               PolicyName(policy),
               p.ok() ? "other calls" : p.error.code.c_str());
  } else if (r.error.code != extract::kNoToolCall) {
    FUZZ_CHECK(!p.ok(),
               "%s: the text fails with %s, but an earlier call makes it "
               "pass as \"%s\"",
               PolicyName(policy), r.error.code.c_str(),
               p.calls.back().name.c_str());
  }
}

void CheckTopLevelBlocks(absl::string_view text) {
  const std::optional<text::BlockStructure> top =
      text::internal::TopLevelBlocks(text);
  if (!top.has_value()) return;
  const text::BlockStructure parsed = text::internal::Parser(text).Run();
  FUZZ_CHECK(top->trusted_until == parsed.trusted_until,
             "fence-line reading trusts to %zu, the parser to %zu",
             top->trusted_until, parsed.trusted_until);
  FUZZ_CHECK(top->fences.size() == parsed.fences.size(),
             "fence-line reading finds %zu fences, the parser %zu",
             top->fences.size(), parsed.fences.size());
  for (size_t i = 0; i < parsed.fences.size(); ++i) {
    const text::CodeFence& a = top->fences[i];
    const text::CodeFence& b = parsed.fences[i];
    FUZZ_CHECK(a.opener_line == b.opener_line && a.end == b.end &&
                   a.closed == b.closed && !b.in_block_quote && !b.in_list_item,
               "fence %zu: fence-line reading differs from the parser", i);
  }
}

}  // namespace
}  // namespace toolgate

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolgate;  // NOLINT
  const absl::string_view text = fuzz::AsText(data, size);
  CheckTopLevelBlocks(text);
  const ExtractionResult strict =
      extract::ExtractToolCalls(text, RepairPolicy::kStrict);
  const ExtractionResult repaired =
      extract::ExtractToolCalls(text, RepairPolicy::kSyntaxRepair);
  CheckResult(strict, RepairPolicy::kStrict);
  CheckResult(repaired, RepairPolicy::kSyntaxRepair);
  if (strict.ok()) {
    FUZZ_CHECK(repaired.ok() && repaired.calls.size() == strict.calls.size(),
               "SYNTAX_REPAIR loses a strict success (%s)",
               repaired.error.code.c_str());
    for (size_t i = 0; i < strict.calls.size(); ++i) {
      FUZZ_CHECK(SameCall(strict.calls[i], repaired.calls[i]) &&
                     repaired.calls[i].repairs.empty(),
                 "SYNTAX_REPAIR reads strict call %zu differently", i);
    }
  }
  CheckPolicy(text, RepairPolicy::kStrict, strict);
  CheckPolicy(text, RepairPolicy::kSyntaxRepair, repaired);
  return 0;
}
