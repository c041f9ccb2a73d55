// Schema validation of arbitrary instances against arbitrary schemas.
//
// Input: one option byte, the schema text, a NUL byte, the instance text.
// Option bits: 0 = default dialect draft-07 (else 2020-12), 1 = format
// assertion. An input without NUL validates the schema against itself.
//
// Invariants:
//  * IsValid, Validate(first) and Validate(all) agree; an invalid instance
//    is explained by violations pointing into it, a valid one by none
//    (schema_support.h);
//  * validity depends on the value only: the instance's canonical JSON,
//    re-parsed, gets the same verdict;
//  * composition means what JSON Schema says it means: for a schema with
//    no "$" keyword (no reference whose target moves when the schema is
//    wrapped), {"allOf":[S]} agrees with S and {"not":S} disagrees.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/json/utf8.h"
#include "core/schema/schema.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/schema_support.h"

namespace toolgate {
namespace {

using schema::CompileOptions;
using schema::Dialect;
using schema::Schema;

bool Compiles(const Json& doc, const CompileOptions& options,
              std::shared_ptr<const Schema>* out) {
  auto compiled = Schema::Compile(doc, options);
  if (!compiled.ok()) return false;
  *out = *std::move(compiled);
  return true;
}

void CheckComposition(const Json& doc, const CompileOptions& options,
                      const Json& instance, bool valid) {
  if (CanonicalJson(doc).find('$') != std::string::npos) return;
  std::shared_ptr<const Schema> all_of;
  std::shared_ptr<const Schema> negated;
  FUZZ_CHECK(Compiles(Json{{"allOf", Json::array({doc})}}, options, &all_of),
             "S compiles but {\"allOf\":[S]} does not");
  FUZZ_CHECK(Compiles(Json{{"not", doc}}, options, &negated),
             "S compiles but {\"not\":S} does not");
  FUZZ_CHECK(all_of->IsValid(instance) == valid,
             "{\"allOf\":[S]} says %d, S says %d", !valid, valid);
  FUZZ_CHECK(negated->IsValid(instance) == !valid,
             "{\"not\":S} says %d, S says %d", !valid, valid);
}

}  // namespace
}  // namespace toolgate

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolgate;  // NOLINT
  if (size == 0) return 0;
  CompileOptions options;
  options.default_dialect =
      fuzz::OptionBit(data, size, 0) ? Dialect::kDraft7 : Dialect::kDraft2020_12;
  options.format_assertion = fuzz::OptionBit(data, size, 1);
  const absl::string_view rest = fuzz::AsText(data + 1, size - 1);
  const size_t nul = rest.find('\0');
  const absl::string_view schema_text = rest.substr(0, nul);
  const absl::string_view instance_text =
      nul == absl::string_view::npos ? schema_text : rest.substr(nul + 1);

  const absl::StatusOr<Json> doc = ParseStrictJson(schema_text);
  if (!doc.ok()) return 0;
  std::shared_ptr<const Schema> schema;
  if (!Compiles(*doc, options, &schema)) return 0;
  absl::StatusOr<Json> instance = ParseStrictJson(instance_text);
  if (!instance.ok()) {
    // Text that is not JSON still makes a good string instance, if UTF-8.
    if (FindInvalidUtf8(instance_text) != absl::string_view::npos) return 0;
    instance = Json(std::string(instance_text));
  }

  const bool valid = fuzz::CheckValidation(*schema, *instance);
  const absl::StatusOr<Json> reread =
      ParseStrictJson(CanonicalJson(*instance), fuzz::RereadLimits());
  if (reread.ok()) {
    FUZZ_CHECK(schema->IsValid(*reread) == valid,
               "the canonical re-read of an instance gets another verdict");
  }
  CheckComposition(*doc, options, *instance, valid);
  return 0;
}
