// Schema::Compile on arbitrary (untrusted) schema documents.
//
// Input: one option byte, then the schema text. Option bits: 0 = default
// dialect draft-07 (else 2020-12), 1 = format assertion.
//
// Invariants (schema.h):
//  * a refusal is INVALID_ARGUMENT;
//  * what compiles is a schema of its dialect: it validates against that
//    dialect's built-in metaschema (a keyword value the metaschema refuses,
//    e.g. "minLength": -1 or "type": "text", must be refused at compile
//    time, not silently ignored). Checked when no subschema switches the
//    dialect with a nested "$schema", and (until the finding recorded in
//    findings/schema_compile_fuzzer/ is fixed) when every $anchor and
//    $dynamicAnchor is an anchor name. Subschemas that cannot affect
//    validation (unreferenced definitions, "then" without "if", ...) are
//    left out: Compile does not read them (WithoutIgnoredSubschemas);
//  * compiling is deterministic and depends on the value only: the
//    canonical re-serialization compiles too, to a schema that decides a
//    set of probe instances identically;
//  * on every probe instance, IsValid, Validate(first) and Validate(all)
//    agree, and violations point into the instance (schema_support.h);
//  * warnings stay bounded (at most 50 plus one summary line).
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/schema/schema.h"
#include "tests/fuzz/fuzz_support.h"
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

// Some object below the root has a "$schema" member (an embedded resource
// may change dialect there, which one metaschema cannot judge).
bool HasNestedSchemaKeyword(const Json& value, bool root) {
  if (value.is_object()) {
    if (!root && value.contains("$schema")) return true;
    for (const auto& member : value.items()) {
      if (HasNestedSchemaKeyword(member.value(), false)) return true;
    }
  } else if (value.is_array()) {
    for (const Json& item : value) {
      if (HasNestedSchemaKeyword(item, false)) return true;
    }
  }
  return false;
}

// The 2020-12 metaschema's anchorString: ^[A-Za-z_][-A-Za-z0-9._]*$.
bool IsAnchorName(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) ||
                     s[0] == '_')) {
    return false;
  }
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' &&
        c != '.') {
      return false;
    }
  }
  return true;
}

// Some "$anchor" or "$dynamicAnchor" string is not an anchor name: Compile
// accepts those (findings/schema_compile_fuzzer/), so the metaschema check
// skips such documents rather than report that one known gap forever.
bool HasMalformedAnchor(const Json& value) {
  if (value.is_object()) {
    for (const auto& member : value.items()) {
      if ((member.key() == "$anchor" || member.key() == "$dynamicAnchor") &&
          member.value().is_string() &&
          !IsAnchorName(member.value().get<std::string>())) {
        return true;
      }
      if (HasMalformedAnchor(member.value())) return true;
    }
  } else if (value.is_array()) {
    for (const Json& item : value) {
      if (HasMalformedAnchor(item)) return true;
    }
  }
  return false;
}

// `value` with every subschema that cannot affect validation replaced by
// `true` (definitions: emptied): definitions (read only when a $ref reaches them), "then"/"else"
// without "if", draft-07 "additionalItems" without an "items" array and
// the siblings of a draft-07 "$ref", and "contentSchema" (an annotation).
// Compile does not read those, so a bad keyword inside one compiles (see
// findings/schema_compile_fuzzer/README.md); the metaschema check judges
// what Compile does read. Applied to every object, schema or not: that
// only ever checks less.
Json WithoutIgnoredSubschemas(const Json& value, Dialect dialect) {
  if (value.is_array()) {
    Json out = Json::array();
    for (const Json& item : value) {
      out.push_back(WithoutIgnoredSubschemas(item, dialect));
    }
    return out;
  }
  if (!value.is_object()) return value;
  const auto ref = value.find("$ref");
  if (dialect == Dialect::kDraft7 && ref != value.end() && ref->is_string()) {
    return Json{{"$ref", *ref}};
  }
  const auto items = value.find("items");
  const bool items_array = items != value.end() && items->is_array();
  Json out = Json::object();
  for (const auto& member : value.items()) {
    const std::string& key = member.key();
    const bool definitions = (key == "$defs" || key == "definitions") &&
                             member.value().is_object();
    const bool ignored =
        ((key == "then" || key == "else") && !value.contains("if")) ||
        (dialect == Dialect::kDraft7 && key == "additionalItems" &&
         !items_array) ||
        key == "contentSchema";
    if (definitions) {
      out[key] = Json::object();
    } else if (ignored) {
      out[key] = true;
    } else {
      out[key] = WithoutIgnoredSubschemas(member.value(), dialect);
    }
  }
  return out;
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

  if (!HasNestedSchemaKeyword(*doc, true) && !HasMalformedAnchor(*doc)) {
    FUZZ_CHECK(Metaschema(schema.dialect())
                   .IsValid(WithoutIgnoredSubschemas(*doc, schema.dialect())),
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
