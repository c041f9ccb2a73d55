// RewriteSyntax and ParseJson (SYNTAX_REPAIR) on arbitrary almost-JSON.
//
// Invariants (repair.h):
//  * strict JSON comes back from RewriteSyntax byte for byte with no
//    repairs, and ParseJson reads it exactly as ParseStrictJson does under
//    both policies;
//  * STRICT is ParseStrictJson: same acceptance, same value, same code, and
//    never a repair;
//  * repair output parses: when SYNTAX_REPAIR succeeds with repairs, the
//    rewritten text parses strictly to exactly the value returned, and a
//    second rewrite of it repairs nothing and returns it byte for byte;
//  * only invalid_json is ever repaired: any other strict failure
//    (truncated, duplicate key, too deep, too large, ...) stands with the
//    same code;
//  * cut-off input (an unclosed comment or fence) is never repaired;
//  * every value read round-trips through canonical JSON.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/repair/repair.h"
#include "tests/fuzz/fuzz_support.h"

namespace toolgate {
namespace {

using repair::ParsedJson;
using repair::RepairPolicy;
using repair::RewriteResult;

JsonLimits FuzzLimits() {
  JsonLimits limits;
  limits.max_bytes = 64 * 1024;
  limits.max_depth = 64;
  return limits;
}

void CheckStrictInput(absl::string_view text, const Json& value,
                      const ParsedJson& repaired) {
  const RewriteResult rewrite = repair::RewriteSyntax(text);
  FUZZ_CHECK(rewrite.repairs.empty() && !rewrite.cut_off,
             "RewriteSyntax repairs strict JSON (%zu repairs, first %s)",
             rewrite.repairs.size(),
             rewrite.repairs.empty() ? "-" : rewrite.repairs[0].c_str());
  FUZZ_CHECK(rewrite.text == text, "RewriteSyntax changes strict JSON:\n  %s",
             rewrite.text.substr(0, 400).c_str());
  FUZZ_CHECK(repaired.ok() && repaired.repairs.empty() &&
                 repaired.value == value,
             "SYNTAX_REPAIR reads strict JSON differently (%s)",
             repaired.code.c_str());
}

void CheckRepaired(absl::string_view text, const ParsedJson& repaired) {
  fuzz::CheckCanonicalRoundTrip(repaired.value, "repaired value");
  const RewriteResult rewrite = repair::RewriteSyntax(text);
  FUZZ_CHECK(!rewrite.cut_off, "a cut-off input was repaired");
  FUZZ_CHECK(rewrite.repairs == repaired.repairs,
             "ParseJson and RewriteSyntax report different repairs");
  const absl::StatusOr<Json> strict =
      ParseStrictJson(rewrite.text, fuzz::RereadLimits());
  FUZZ_CHECK(strict.ok(), "repair output does not parse strictly: %s\n  %s",
             std::string(strict.status().message()).c_str(),
             rewrite.text.substr(0, 400).c_str());
  FUZZ_CHECK(*strict == repaired.value,
             "repair output parses to another value than the one returned");
  const RewriteResult again = repair::RewriteSyntax(rewrite.text);
  FUZZ_CHECK(again.text == rewrite.text && again.repairs.empty(),
             "rewriting repair output changes it again (%s)",
             again.repairs.empty() ? "text" : again.repairs[0].c_str());
}

}  // namespace
}  // namespace toolgate

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolgate;  // NOLINT
  const absl::string_view text = fuzz::AsText(data, size);
  const JsonLimits limits = FuzzLimits();
  const absl::StatusOr<Json> direct = ParseStrictJson(text, limits);
  const ParsedJson strict = repair::ParseJson(text, RepairPolicy::kStrict, limits);
  const ParsedJson repaired =
      repair::ParseJson(text, RepairPolicy::kSyntaxRepair, limits);

  FUZZ_CHECK(strict.ok() == direct.ok(), "STRICT disagrees with ParseStrictJson");
  FUZZ_CHECK(strict.repairs.empty(), "STRICT reported a repair");
  if (direct.ok()) {
    FUZZ_CHECK(strict.value == *direct, "STRICT reads another value");
    CheckStrictInput(text, *direct, repaired);
    return 0;
  }
  const std::string code = JsonErrorCode(direct.status());
  FUZZ_CHECK(strict.code == code, "STRICT code %s, ParseStrictJson code %s",
             strict.code.c_str(), code.c_str());
  if (code != kInvalidJson) {
    FUZZ_CHECK(!repaired.ok() && repaired.code == code,
               "a %s failure was repaired (now %s)", code.c_str(),
               repaired.ok() ? "ok" : repaired.code.c_str());
    return 0;
  }
  if (repaired.ok()) {
    FUZZ_CHECK(!repaired.repairs.empty(),
               "SYNTAX_REPAIR fixed invalid JSON without naming a repair");
    CheckRepaired(text, repaired);
  } else {
    FUZZ_CHECK(!repaired.code.empty(), "a failure without a code");
  }
  return 0;
}
