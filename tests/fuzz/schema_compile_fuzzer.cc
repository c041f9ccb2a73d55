// Schema::Compile on arbitrary (untrusted) schema documents.
//
// Input: one option byte, then the schema text. Option bits: 0 = default
// dialect draft-07 (else 2020-12), 1 = format assertion.
//
// Invariants (schema.h):
//  * a refusal is INVALID_ARGUMENT;
//  * what compiles is a schema of its dialect: the whole document, dead
//    subschemas and annotations included, validates against that
//    dialect's built-in metaschema (a keyword value the metaschema refuses,
//    e.g. "minLength": -1, "type": "text" or "title": 5, must be refused
//    at compile time, not silently ignored). Checked when no subschema
//    switches the dialect with a nested "$schema" (metaschema_check.h);
//  * compiling is deterministic and depends on the value only: the
//    canonical re-serialization compiles too, to a schema that decides a
//    set of probe instances identically;
//  * on every probe instance, IsValid, Validate(first) and Validate(all)
//    agree, and violations point into the instance (schema_support.h);
//  * warnings stay bounded (at most 50 plus one summary line).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/schema/schema.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/metaschema_check.h"
#include "tests/fuzz/schema_support.h"

namespace toolgate {
namespace {

using schema::CompileOptions;
using schema::Dialect;
using schema::Schema;

std::shared_ptr<const Schema> MustCompileMeta(const char* uri) {
  auto meta = Schema::Compile(Json{{"$ref", uri}});
  FUZZ_CHECK(meta.ok(), "built-in metaschema %s does not compile: %s", uri,
             std::string(meta.status().message()).c_str());
  return *meta;
}

const Schema& Metaschema(Dialect dialect) {
  static const auto* const kMeta2020 = new std::shared_ptr<const Schema>(
      MustCompileMeta("https://json-schema.org/draft/2020-12/schema"));
  static const auto* const kMeta7 = new std::shared_ptr<const Schema>(
      MustCompileMeta("http://json-schema.org/draft-07/schema#"));
  return dialect == Dialect::kDraft7 ? **kMeta7 : **kMeta2020;
}

// Instances that exercise most keywords.
const std::vector<Json>& Probes() {
  static const auto* const kProbes = new std::vector<Json>{
      nullptr, true, 0, -1, 2.5, 1e300, "", "abc", "2024-01-31",
      Json::array(), Json::array({1, "a", nullptr, 1}), Json::object(),
      Json{{"a", 1}, {"b", Json::array({true})}, {"c", {{"d", "e"}}}},
  };
  return *kProbes;
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
  const absl::StatusOr<Json> doc =
      ParseStrictJson(fuzz::AsText(data + 1, size - 1));
  if (!doc.ok()) return 0;

  const auto compiled = Schema::Compile(*doc, options);
  if (!compiled.ok()) {
    FUZZ_CHECK(compiled.status().code() == absl::StatusCode::kInvalidArgument,
               "a refusal that is not INVALID_ARGUMENT: %s",
               compiled.status().ToString().c_str());
    return 0;
  }
  const Schema& schema = **compiled;
  FUZZ_CHECK(schema.warnings().size() <= 51, "%zu warnings",
             schema.warnings().size());

  if (!fuzz::HasNestedSchemaKeyword(*doc)) {
    FUZZ_CHECK(Metaschema(schema.dialect()).IsValid(*doc),
               "compiled a schema its %s metaschema refuses: %s",
               schema.dialect() == Dialect::kDraft7 ? "draft-07" : "2020-12",
               TruncatedJson(*doc, 400).c_str());
  }

  const absl::StatusOr<Json> reread =
      ParseStrictJson(CanonicalJson(*doc), fuzz::RereadLimits());
  FUZZ_CHECK(reread.ok(), "canonical schema does not re-parse");
  const auto again = Schema::Compile(*reread, options);
  FUZZ_CHECK(again.ok(), "the canonical form of a schema does not compile: %s",
             std::string(again.status().message()).c_str());
  FUZZ_CHECK((*again)->dialect() == schema.dialect(), "dialect changed");

  std::vector<Json> probes = Probes();
  probes.push_back(*doc);  // A schema is a rich instance, too.
  for (const Json& probe : probes) {
    const bool valid = fuzz::CheckValidation(schema, probe);
    FUZZ_CHECK((*again)->IsValid(probe) == valid,
               "two compilations of one schema disagree on %s",
               TruncatedJson(probe, 200).c_str());
  }
  return 0;
}
