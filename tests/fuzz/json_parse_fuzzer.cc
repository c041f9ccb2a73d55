// ParseStrictJson on arbitrary bytes.
//
// Invariants:
//  * a refusal is INVALID_ARGUMENT carrying one of the documented codes;
//  * an accepted value round-trips: canonical JSON parses strictly again,
//    to an equal value, and serializes to the same bytes;
//  * the fast parser agrees with the SAX parser it replaced (the oracle of
//    strict_json_differential_test): what one accepts the other accepts,
//    with an equal value, and the SAX parser accepts nothing the fast one
//    refuses except text with a NUL byte (nlohmann's lexer reads NUL as the
//    end of input; ParseStrictJson refuses it as trailing bytes);
//  * an accepted value is also what permissive nlohmann reads (strict
//    acceptance is a subset of JSON, never a different reading of it);
//  * JSON whitespace around the value changes neither acceptance nor the
//    value (nor, before it, the error code; after a leading byte order
//    mark, which is skipped).
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/json/strict_json.h"
#include "core/json/strict_json_sax_internal.h"
#include "tests/fuzz/fuzz_support.h"

namespace toolgate {
namespace {

void CheckRefusal(const absl::Status& status) {
  static const std::set<std::string>* const kCodes = new std::set<std::string>{
      std::string(kInputTooLarge),    std::string(kInvalidJson),
      std::string(kTruncatedJson),    std::string(kEmptyInput),
      std::string(kDuplicateKey),     std::string(kNestingTooDeep),
      std::string(kNumberOutOfRange), std::string(kNumberInexact)};
  FUZZ_CHECK(status.code() == absl::StatusCode::kInvalidArgument,
             "refusal is not INVALID_ARGUMENT: %s", status.ToString().c_str());
  const std::string code = JsonErrorCode(status);
  FUZZ_CHECK(kCodes->count(code) == 1, "undocumented error code \"%s\"",
             code.c_str());
}

void CheckAccepted(absl::string_view text, const Json& value) {
  fuzz::CheckCanonicalRoundTrip(value, "ParseStrictJson");
  Json permissive = Json::parse(text.begin(), text.end(), nullptr,
                                /*allow_exceptions=*/false);
  FUZZ_CHECK(!permissive.is_discarded(),
             "strictly accepted text is not JSON to nlohmann");
  FUZZ_CHECK(permissive == value,
             "nlohmann reads another value: strict %s, nlohmann %s",
             CanonicalJson(value).substr(0, 200).c_str(),
             CanonicalJson(permissive).substr(0, 200).c_str());
}

}  // namespace
}  // namespace toolgate

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolgate;  // NOLINT
  const absl::string_view text = fuzz::AsText(data, size);
  JsonLimits limits;
  limits.max_bytes = 64 * 1024;  // Inputs past it still exercise the cap.
  limits.max_depth = 64;
  const absl::StatusOr<Json> fast = ParseStrictJson(text, limits);
  const absl::StatusOr<Json> sax =
      json_internal::ParseStrictJsonWithSax(text, limits);

  if (fast.ok()) {
    FUZZ_CHECK(sax.ok(), "fast parser accepts what the SAX parser refuses: %s",
               std::string(sax.status().message()).c_str());
    FUZZ_CHECK(*sax == *fast, "the two parsers read different values");
    CheckAccepted(text, *fast);
  } else {
    CheckRefusal(fast.status());
    FUZZ_CHECK(!sax.ok() || text.find('\0') != absl::string_view::npos,
               "SAX parser accepts what the fast parser refuses (%s)",
               std::string(fast.status().message()).c_str());
  }
  if (!sax.ok()) CheckRefusal(sax.status());

  // JSON whitespace around the value is insignificant. Before the value it
  // changes nothing at all; after it, only acceptance is compared (a space
  // after an unterminated "\ turns truncated_json into invalid_json).
  if (size + 4 <= limits.max_bytes) {
    // A leading UTF-8 byte order mark is skipped (as nlohmann does), so
    // the whitespace goes after it.
    const size_t bom = absl::StartsWith(text, "\xEF\xBB\xBF") ? 3 : 0;
    const absl::StatusOr<Json> lead = ParseStrictJson(
        absl::StrCat(text.substr(0, bom), " \n\t\r", text.substr(bom)), limits);
    FUZZ_CHECK(lead.ok() == fast.ok(),
               "leading whitespace changes acceptance (was %s)",
               fast.ok() ? "accepted" : fast.status().ToString().c_str());
    if (fast.ok()) {
      FUZZ_CHECK(*lead == *fast, "leading whitespace changes the value");
    } else if (!absl::StartsWith(text, "\xEF") || bom == 3) {
      // (A partial byte order mark, "\xEF" or "\xEF\xBB", is cut-off text
      // at the start and invalid after whitespace: codes may differ.)
      FUZZ_CHECK(JsonErrorCode(lead.status()) == JsonErrorCode(fast.status()),
                 "leading whitespace changes the error code: %s vs %s",
                 JsonErrorCode(fast.status()).c_str(),
                 JsonErrorCode(lead.status()).c_str());
    }
    const absl::StatusOr<Json> trail =
        ParseStrictJson(std::string(text) + " \n\t\r", limits);
    FUZZ_CHECK(trail.ok() == fast.ok(),
               "trailing whitespace changes acceptance (was %s)",
               fast.ok() ? "accepted" : fast.status().ToString().c_str());
    if (fast.ok()) {
      FUZZ_CHECK(*trail == *fast, "trailing whitespace changes the value");
    }
  }
  return 0;
}
