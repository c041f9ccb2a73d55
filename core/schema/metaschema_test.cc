// A schema that Compile accepts validates against its dialect's
// metaschema: the values the compiler never reads (annotations, dead
// subschemas) or gives a harmless meaning ("type": []) are refused too,
// with the pointer of the offending member and what the metaschema
// requires there (tests/fuzz/findings/schema_compile_fuzzer/).
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/schema/schema.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace schema {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kDraft7Uri[] = "http://json-schema.org/draft-07/schema#";

CompileOptions Options(Dialect dialect) {
  CompileOptions options;
  options.default_dialect = dialect;
  return options;
}

// First: the metaschemas compile on first use, and compilations that race
// to that first use must all see them.
TEST(MetaschemaCheckTest, FirstUseFromManyThreadsAgrees) {
  std::vector<std::thread> threads;
  std::vector<int> refused(8, -1);
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([i, &refused] {
      const Dialect dialect = i % 2 ? Dialect::kDraft7 : Dialect::kDraft2020_12;
      const bool bad =
          !Schema::Compile(Json::parse(R"({"title":5})"), Options(dialect))
               .ok();
      const bool good =
          Schema::Compile(Json::parse(R"({"title":"t"})"), Options(dialect))
              .ok();
      refused[i] = bad && good ? 1 : 0;
    });
  }
  for (std::thread& t : threads) t.join();
  for (int r : refused) EXPECT_EQ(r, 1);
}

struct RefusalCase {
  std::string name;
  Dialect dialect;
  std::string schema;
  std::string pointer;  // Of the offending member; "(root)" for "".
  std::string rule;     // Substring: what the metaschema requires there.
  // The metaschema that refuses it, when not `dialect`'s.
  std::string judged_by = "";
};

void PrintTo(const RefusalCase& c, std::ostream* os) { *os << c.name; }

class MetaschemaRefusal : public testing::TestWithParam<RefusalCase> {};

TEST_P(MetaschemaRefusal, NamesTheMemberAndTheRule) {
  const RefusalCase& c = GetParam();
  auto compiled = Schema::Compile(Json::parse(c.schema), Options(c.dialect));
  ASSERT_FALSE(compiled.ok()) << c.schema;
  EXPECT_EQ(compiled.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(compiled.status().message());
  EXPECT_THAT(message,
              StartsWith(absl::StrCat("schema refused at ", c.pointer, ": ")));
  const std::string judged_by = !c.judged_by.empty() ? c.judged_by
                                : c.dialect == Dialect::kDraft7
                                    ? "draft-07"
                                    : "draft 2020-12";
  EXPECT_THAT(message,
              HasSubstr(absl::StrCat("not a valid ", judged_by, " schema: ")));
  EXPECT_THAT(message, HasSubstr(c.rule));
}

constexpr Dialect k2020 = Dialect::kDraft2020_12;
constexpr Dialect k7 = Dialect::kDraft7;

INSTANTIATE_TEST_SUITE_P(
    Table, MetaschemaRefusal,
    testing::Values(
        // Names no fragment can spell: unreachable anchors.
        RefusalCase{"anchor_not_a_name", k2020,
                    R"({"$anchor":"not an anchor!"})", "/$anchor",
                    "string matching /^[A-Za-z_][-A-Za-z0-9._]*$/"},
        RefusalCase{"anchor_empty", k2020, R"({"$anchor":""})", "/$anchor",
                    "string matching"},
        RefusalCase{"dynamic_anchor_not_a_name", k2020,
                    R"({"$defs":{"x":{"$dynamicAnchor":"(("}}})",
                    "/$defs/x/$dynamicAnchor", "string matching"},
        // Malformed values the compiler gave a harmless meaning.
        RefusalCase{"type_empty", k2020, R"({"type":[]})", "/type",
                    "array has 0 items; expected at least 1 item"},
        RefusalCase{"type_repeated", k2020, R"({"type":["string","string"]})",
                    "/type", "items 0 and 1 are equal"},
        RefusalCase{"required_repeated", k2020, R"({"required":["a","a"]})",
                    "/required", "unique items"},
        RefusalCase{"dependent_required_repeated", k2020,
                    R"({"dependentRequired":{"a":["b","b"]}})",
                    "/dependentRequired/a", "unique items"},
        RefusalCase{"draft7_dependencies_repeated", k7,
                    R"({"dependencies":{"a":["b","b"]}})", "/dependencies/a",
                    "items 0 and 1 are equal"},
        RefusalCase{"prefix_items_empty", k2020,
                    R"({"prefixItems":[],"unevaluatedItems":false})",
                    "/prefixItems", "at least 1 item"},
        RefusalCase{"draft7_items_empty", k7, R"({"items":[]})", "/items",
                    "expected at least 1 item"},
        // Annotations of the wrong type: never read, still wrong.
        RefusalCase{"title_number", k2020, R"({"title":5})", "/title",
                    "requires string"},
        RefusalCase{"comment_number", k2020, R"({"$comment":5})", "/$comment",
                    "requires string"},
        RefusalCase{"examples_not_array", k2020, R"({"examples":5})",
                    "/examples", "requires array"},
        RefusalCase{"read_only_string", k2020, R"({"readOnly":"x"})",
                    "/readOnly", "requires boolean"},
        RefusalCase{"content_media_type_number", k2020,
                    R"({"contentMediaType":5})", "/contentMediaType",
                    "requires string"},
        RefusalCase{"vocabulary_number", k2020, R"({"$vocabulary":5})",
                    "/$vocabulary", "requires object"},
        RefusalCase{"format_number_annotating", k2020, R"({"format":5})",
                    "/format", "requires string"},
        RefusalCase{"draft7_description_number", k7,
                    R"({"properties":{"a":{"description":1}}})",
                    "/properties/a/description", "requires string"},
        RefusalCase{"defs_not_object", k2020, R"({"$defs":5})", "/$defs",
                    "requires object"},
        RefusalCase{"definitions_not_object", k2020,
                    R"({"definitions":"date"})", "/definitions",
                    "requires object"},
        RefusalCase{"draft7_definitions_not_object", k7,
                    R"({"definitions":[]})", "/definitions", "requires object"},
        RefusalCase{"recursive_anchor_boolean", k2020,
                    R"({"$recursiveAnchor":true})", "/$recursiveAnchor",
                    "requires string"},
        RefusalCase{"dependencies_number", k2020, R"({"dependencies":{"a":5}})",
                    "/dependencies/a", "at least one of 2 alternatives"},
        // Typos in subschemas that cannot apply today.
        RefusalCase{"unreferenced_definition", k2020,
                    R"({"$defs":{"x":{"type":"sNring"}}})", "/$defs/x/type",
                    "enum: array | boolean | integer | null | number | "
                    "object | string"},
        RefusalCase{"draft7_unreferenced_definition", k7,
                    R"({"definitions":{"a":{"type":"sNring"}},"enum":[1]})",
                    "/definitions/a/type", "not one of the allowed values"},
        RefusalCase{"then_without_if", k2020, R"({"then":{"minLength":-1}})",
                    "/then/minLength", "at least 0"},
        RefusalCase{"content_schema", k2020, R"({"contentSchema":{"type":5}})",
                    "/contentSchema/type", "at least one of 2 alternatives"},
        RefusalCase{"draft7_additional_items_without_items_array", k7,
                    R"({"additionalItems":{"type":"nuql"}})",
                    "/additionalItems/type", "not one of the allowed values"},
        RefusalCase{"draft7_ref_sibling", k7,
                    R"({"definitions":{"a":{}},"$ref":"#/definitions/a",)"
                    R"("maxLength":"3"})",
                    "/maxLength", "requires integer"},
        // An embedded resource is judged by its own dialect.
        RefusalCase{"embedded_draft7_items_empty", k2020,
                    R"({"$defs":{"x":{"$schema":"http://json-schema.org/)"
                    R"(draft-07/schema#","items":[]}},"$ref":"#/$defs/x"})",
                    "/$defs/x/items", "at least 1 item", "draft-07"},
        RefusalCase{"embedded_same_dialect", k2020,
                    R"({"$defs":{"x":{"$schema":"https://json-schema.org/)"
                    R"(draft/2020-12/schema","type":[]}}})",
                    "/$defs/x/type", "at least 1 item"},
        // 2020-12 around draft-07 around 2020-12 again.
        RefusalCase{"embedded_dialect_switches_back", k2020,
                    R"({"$defs":{"x":{"$schema":"http://json-schema.org/)"
                    R"(draft-07/schema#","items":[{"$schema":"https://)"
                    R"(json-schema.org/draft/2020-12/schema",)"
                    R"("prefixItems":[]}]}}})",
                    "/$defs/x/items/0/prefixItems", "at least 1 item"}),
    [](const testing::TestParamInfo<RefusalCase>& info) {
      return info.param.name;
    });

struct AcceptCase {
  std::string name;
  Dialect dialect;
  std::string schema;
};

void PrintTo(const AcceptCase& c, std::ostream* os) { *os << c.name; }

class MetaschemaAccepts : public testing::TestWithParam<AcceptCase> {};

TEST_P(MetaschemaAccepts, ValidSchemaCompiles) {
  const AcceptCase& c = GetParam();
  auto compiled = Schema::Compile(Json::parse(c.schema), Options(c.dialect));
  EXPECT_TRUE(compiled.ok()) << compiled.status();
}

INSTANTIATE_TEST_SUITE_P(
    Table, MetaschemaAccepts,
    testing::Values(
        AcceptCase{"true", k2020, "true"}, AcceptCase{"false", k7, "false"},
        AcceptCase{"annotations", k2020,
                   R"({"title":"t","description":"d","$comment":"c",)"
                   R"("default":5,"examples":[1],"deprecated":false,)"
                   R"("readOnly":true,"writeOnly":false,"format":"emial",)"
                   R"("contentMediaType":"text/plain","$anchor":"a-1.b_"})"},
        AcceptCase{"unknown_keywords", k2020,
                   R"({"x-vendor":{"anything":[1,{}]},"requried":5})"},
        AcceptCase{"older_keywords_in_2020_12", k2020,
                   R"({"definitions":{"a":{"type":"string"}},)"
                   R"("dependencies":{"b":["c"],"d":{"type":"object"}}})"},
        AcceptCase{"draft7_tuple", k7,
                   R"({"items":[{"type":"string"}],"additionalItems":false})"},
        AcceptCase{"draft7_ref_to_metaschema", k7,
                   R"({"$ref":"http://json-schema.org/draft-07/schema#"})"},
        AcceptCase{
            "ref_to_metaschema", k2020,
            R"({"$ref":"https://json-schema.org/draft/2020-12/schema"})"},
        // Judged by draft-07 rules, where an items array is a tuple.
        AcceptCase{"embedded_draft7_tuple", k2020,
                   R"({"$defs":{"x":{"$schema":"http://json-schema.org/)"
                   R"(draft-07/schema#","items":[{"type":"string"}]}},)"
                   R"("$ref":"#/$defs/x"})"},
        AcceptCase{"embedded_2020_12_in_draft7", k7,
                   R"({"definitions":{"x":{"$schema":"https://json-schema.)"
                   R"(org/draft/2020-12/schema","prefixItems":[true]}},)"
                   R"("$ref":"#/definitions/x"})"}),
    [](const testing::TestParamInfo<AcceptCase>& info) {
      return info.param.name;
    });

// The compiler's own refusals come first and keep their messages.
TEST(MetaschemaCheckTest, CompilerRefusalsKeepTheirMessage) {
  auto compiled = Schema::Compile(
      Json::parse(R"({"title":5,"properties":{"a":{"minLength":-1}}})"));
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.status().message(),
            "schema refused at /properties/a/minLength: must be a "
            "non-negative integer");
}

// At the default max_schema_depth the deepest document is still checked.
TEST(MetaschemaCheckTest, DeepestAllowedDocumentCompiles) {
  std::string schema;
  for (int i = 0; i < 127; ++i) schema += R"({"not":)";
  schema += "{}";
  for (int i = 0; i < 127; ++i) schema += "}";
  auto compiled = Schema::Compile(Json::parse(schema));
  EXPECT_TRUE(compiled.ok()) << compiled.status();
}

// Far past it, the check stops with its own message, not a crash.
TEST(MetaschemaCheckTest, TooDeepToCheckIsRefusedClearly) {
  std::string schema;
  for (int i = 0; i < 400; ++i) schema += R"({"not":)";
  schema += "{}";
  for (int i = 0; i < 400; ++i) schema += "}";
  CompileOptions options;
  options.max_schema_depth = 1000;
  auto compiled = Schema::Compile(Json::parse(schema), options);
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(std::string(compiled.status().message()),
              HasSubstr("nested too deeply to check against the draft "
                        "2020-12 metaschema"));
}

// A document a $ref loads is part of what compiles, and is checked too
// (by its own dialect: draft-07 here, from the referring schema).
TEST(MetaschemaCheckTest, DocumentsARefLoadsAreChecked) {
  CompileOptions options = Options(Dialect::kDraft7);
  options.documents["https://example.com/common"] = Json::parse(
      R"({"definitions":{"id":{"type":"string"},
                         "unused":{"type":"sNring"}}})");
  auto compiled = Schema::Compile(
      Json::parse(R"({"$ref":"https://example.com/common#/definitions/id"})"),
      options);
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(std::string(compiled.status().message()),
              StartsWith("schema refused at https://example.com/"
                         "common#/definitions/unused/type: not a valid "
                         "draft-07 schema"));

  options.documents["https://example.com/common"]["definitions"].erase(
      "unused");
  compiled = Schema::Compile(
      Json::parse(R"({"$ref":"https://example.com/common#/definitions/id"})"),
      options);
  EXPECT_TRUE(compiled.ok()) << compiled.status();
}

// A custom metaschema is judged by the built-in metaschema of the dialect
// it resolves to: the keywords toolgate evaluates are that dialect's.
TEST(MetaschemaCheckTest, CustomMetaschemaIsJudgedByItsDialect) {
  CompileOptions options;
  options.documents["https://example.com/meta"] = Json::parse(
      R"({"$schema":"https://json-schema.org/draft/2020-12/schema",
          "$id":"https://example.com/meta",
          "$vocabulary":{
            "https://json-schema.org/draft/2020-12/vocab/core":true,
            "https://json-schema.org/draft/2020-12/vocab/validation":true},
          "$dynamicAnchor":"meta"})");
  auto good = Schema::Compile(
      Json::parse(R"({"$schema":"https://example.com/meta","type":"string"})"),
      options);
  EXPECT_TRUE(good.ok()) << good.status();
  auto bad = Schema::Compile(
      Json::parse(R"({"$schema":"https://example.com/meta","title":5})"),
      options);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              StartsWith("schema refused at /title: not a valid draft "
                         "2020-12 schema"));

  options.documents["https://example.com/meta7"] =
      Json::parse(absl::StrCat(R"({"$schema":")", kDraft7Uri,
                               R"(","$id":"https://example.com/meta7"})"));
  auto tuple = Schema::Compile(
      Json::parse(R"({"$schema":"https://example.com/meta7","items":[{}]})"),
      options);
  EXPECT_TRUE(tuple.ok()) << tuple.status();
}

}  // namespace
}  // namespace schema
}  // namespace toolgate
