// ExtractVerdict on arbitrary agent envelopes, under both policies, against
// the shipped default result schema and a permissive custom one.
//
// Input: one option byte, then the envelope. Option bit 0 = SYNTAX_REPAIR,
// bit 1 = the custom schema (any object with a verdict string).
//
// Invariants (verdict.h):
//  * PASS/FAIL/REFUSED only with no stop_reason, a result whose canonical
//    JSON is result_json and re-parses strictly, that validates against the
//    schema, and whose "verdict" is exactly the outcome's word;
//  * CONTRACT_STOP has a documented stop_reason, a message, and no result;
//  * STRICT reports no repairs; violations stay within the cap;
//  * never PASS on cut-off output: the envelope followed by an unclosed
//    ```json fence is CONTRACT_STOP;
//  * never an earlier block instead: a passing block placed before an
//    envelope that stops (other than for having no block) still stops, and
//    before an envelope with a verdict changes nothing about it.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "core/verdict/verdict.h"
#include "tests/fuzz/fuzz_support.h"

namespace toolgate {
namespace {

using repair::RepairPolicy;
using verdict::Outcome;
using verdict::VerdictResult;

constexpr char kCustomSchema[] =
    R"({"type":"object","required":["verdict"],)"
    R"("properties":{"verdict":{"type":"string"}}})";
constexpr absl::string_view kEarlierPass =
    "```json\n{\"verdict\": \"pass\", \"reason\": \"an earlier block\"}\n```\n";

const schema::Schema& ResultSchema(bool custom) {
  static const auto* const kDefault = [] {
    auto s = verdict::DefaultResultSchema();
    FUZZ_CHECK(s.ok(), "default result schema: %s",
               std::string(s.status().message()).c_str());
    return new std::shared_ptr<const schema::Schema>(*s);
  }();
  static const auto* const kCustom = [] {
    auto s = verdict::CompileResultSchema(kCustomSchema);
    FUZZ_CHECK(s.ok(), "custom result schema: %s",
               std::string(s.status().message()).c_str());
    return new std::shared_ptr<const schema::Schema>(*s);
  }();
  return custom ? **kCustom : **kDefault;
}

void CheckResult(const VerdictResult& r, const schema::Schema& schema,
                 RepairPolicy policy) {
  static const std::set<std::string>* const kReasons =
      new std::set<std::string>{
          "envelope_too_large",     "no_result_block",
          "unclosed_result_block",  "unclosed_reasoning",
          "result_block_not_last",  "empty_result_block",
          "truncated_result_block", "unparseable_result_block",
          "duplicate_key",          "result_block_invalid"};
  FUZZ_CHECK(policy != RepairPolicy::kStrict || r.repairs.empty(),
             "STRICT reported the repair %s", r.repairs[0].c_str());
  FUZZ_CHECK(r.violations.size() <= verdict::VerdictLimits().max_violations,
             "%zu violations", r.violations.size());
  if (r.outcome == Outcome::kContractStop) {
    FUZZ_CHECK(kReasons->count(r.stop_reason) == 1,
               "CONTRACT_STOP with undocumented stop_reason \"%s\"",
               r.stop_reason.c_str());
    FUZZ_CHECK(!r.message.empty(), "CONTRACT_STOP %s without a message",
               r.stop_reason.c_str());
    FUZZ_CHECK(r.result.is_null() && r.result_json.empty(),
               "CONTRACT_STOP %s carries a result", r.stop_reason.c_str());
    return;
  }
  const char* word = r.outcome == Outcome::kPass   ? "pass"
                     : r.outcome == Outcome::kFail ? "fail"
                                                   : "refused";
  FUZZ_CHECK(r.stop_reason.empty(), "%s with stop_reason %s", word,
             r.stop_reason.c_str());
  FUZZ_CHECK(r.violations.empty(), "%s with %zu violations", word,
             r.violations.size());
  FUZZ_CHECK(r.blocks_found >= 1, "%s from %d blocks", word, r.blocks_found);
  FUZZ_CHECK(r.result.is_object(), "%s with a non-object result", word);
  const auto v = r.result.find("verdict");
  FUZZ_CHECK(v != r.result.end() && *v == word,
             "outcome %s but the block says %s", word,
             v == r.result.end() ? "nothing" : TruncatedJson(*v).c_str());
  FUZZ_CHECK(r.result_json == CanonicalJson(r.result),
             "result_json is not the canonical result");
  fuzz::CheckCanonicalRoundTrip(r.result, "verdict result");
  FUZZ_CHECK(schema.IsValid(r.result),
             "%s from a block the result schema refuses: %s", word,
             r.result_json.substr(0, 300).c_str());
}

}  // namespace
}  // namespace toolgate

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolgate;  // NOLINT
  if (size == 0) return 0;
  const RepairPolicy policy = fuzz::OptionBit(data, size, 0)
                                  ? RepairPolicy::kSyntaxRepair
                                  : RepairPolicy::kStrict;
  const schema::Schema& schema = ResultSchema(fuzz::OptionBit(data, size, 1));
  const absl::string_view envelope = fuzz::AsText(data + 1, size - 1);

  const VerdictResult r = verdict::ExtractVerdict(envelope, schema, policy);
  CheckResult(r, schema, policy);

  const VerdictResult cut = verdict::ExtractVerdict(
      std::string(envelope) + "\n```json\n", schema, policy);
  FUZZ_CHECK(cut.outcome == Outcome::kContractStop,
             "an envelope ending in an unclosed fence reads as %s",
             std::string(verdict::OutcomeName(cut.outcome)).c_str());

  const VerdictResult p = verdict::ExtractVerdict(
      std::string(kEarlierPass) + std::string(envelope), schema, policy);
  CheckResult(p, schema, policy);
  if (r.outcome != Outcome::kContractStop) {
    FUZZ_CHECK(p.outcome == r.outcome && p.result_json == r.result_json,
               "an earlier block changes the verdict from %s to %s (%s)",
               std::string(verdict::OutcomeName(r.outcome)).c_str(),
               std::string(verdict::OutcomeName(p.outcome)).c_str(),
               p.stop_reason.c_str());
  } else if (r.stop_reason != verdict::kNoResultBlock) {
    FUZZ_CHECK(p.outcome == Outcome::kContractStop,
               "the envelope stops with %s, but an earlier block makes it %s",
               r.stop_reason.c_str(),
               std::string(verdict::OutcomeName(p.outcome)).c_str());
  }
  return 0;
}
