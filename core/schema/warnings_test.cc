// Schema::warnings(): members of subschemas that are no keyword of their
// dialect. They stay ignored, as JSON Schema specifies; the engine says so.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/schema/schema.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace schema {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::IsEmpty;

constexpr char kIgnored[] = ": ignored, as JSON Schema specifies";

std::vector<std::string> WarningsOf(const std::string& schema,
                                    const CompileOptions& options = {}) {
  auto s = Schema::Compile(Json::parse(schema), options);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? (*s)->warnings() : std::vector<std::string>{"not compiled"};
}

// `name` at `pointer`, with an optional parenthesized hint.
std::string Unknown(const std::string& name, const std::string& pointer,
                    const std::string& hint = "") {
  return absl::StrCat("unknown keyword \"", name, "\" at ", pointer,
                      hint.empty() ? "" : absl::StrCat(" (", hint, ")"),
                      kIgnored);
}

std::string Meant(const std::string& keyword) {
  return absl::StrCat("did you mean \"", keyword, "\"?");
}

struct WarningCase {
  const char* name;
  const char* schema;
  std::vector<std::string> warnings;  // Exactly, in order.
};

class WarningTest : public ::testing::TestWithParam<WarningCase> {};

TEST_P(WarningTest, NamesPointerAndLikelyKeyword) {
  EXPECT_THAT(WarningsOf(GetParam().schema),
              ElementsAreArray(GetParam().warnings));
}

INSTANTIATE_TEST_SUITE_P(
    Misspelt, WarningTest,
    ::testing::Values(
        WarningCase{"root", R"({"type":"object","requried":["a"]})",
                    {Unknown("requried", "/requried", Meant("required"))}},
        WarningCase{"in_properties",
                    R"({"properties":{"a":{"type":"integer","maximun":5}}})",
                    {Unknown("maximun", "/properties/a/maximun",
                             Meant("maximum"))}},
        WarningCase{"wrong_case", R"({"additionalproperties":false})",
                    {Unknown("additionalproperties", "/additionalproperties",
                             Meant("additionalProperties"))}},
        WarningCase{"in_items", R"({"items":{"minLenght":1}})",
                    {Unknown("minLenght", "/items/minLenght",
                             Meant("minLength"))}},
        WarningCase{"in_all_of", R"({"allOf":[{"tpye":"string"}]})",
                    {Unknown("tpye", "/allOf/0/tpye", Meant("type"))}},
        WarningCase{"in_defs", R"({"$defs":{"n":{"minimun":0}},"$ref":"#/$defs/n"})",
                    {Unknown("minimun", "/$defs/n/minimun", Meant("minimum"))}},
        WarningCase{"draft7_definitions",
                    R"({"$schema":"http://json-schema.org/draft-07/schema#",
                        "definitions":{"n":{"enun":[1]}},
                        "properties":{"x":{"$ref":"#/definitions/n"}}})",
                    {Unknown("enun", "/definitions/n/enun", Meant("enum"))}},
        WarningCase{"escaped_pointer",
                    R"({"properties":{"a/b":{"patern":"x"}}})",
                    {Unknown("patern", "/properties/a~1b/patern",
                             Meant("pattern"))}},
        WarningCase{"several_in_order",
                    R"({"properties":{"a":{"Type":"string"}},"maxItem":1})",
                    {Unknown("maxItem", "/maxItem", Meant("maxItems")),
                     Unknown("Type", "/properties/a/Type", Meant("type"))}},
        WarningCase{"short_names_only_near_misses",
                    R"({"foo":1,"id":"x","nullable":true})",
                    {Unknown("foo", "/foo"), Unknown("id", "/id", Meant("$id")),
                     Unknown("nullable", "/nullable")}}),
    [](const auto& info) { return std::string(info.param.name); });

INSTANTIATE_TEST_SUITE_P(
    OtherDialect, WarningTest,
    ::testing::Values(
        WarningCase{"draft7_keyword_in_2020",
                    R"({"dependencies":{"a":["b"]}})",
                    {Unknown("dependencies", "/dependencies",
                             "a draft-07 keyword, not draft 2020-12; use "
                             "\"dependentRequired\" or \"dependentSchemas\"")}},
        WarningCase{"2020_keyword_in_draft7",
                    R"({"$schema":"http://json-schema.org/draft-07/schema#",
                        "unevaluatedProperties":false})",
                    {Unknown("unevaluatedProperties", "/unevaluatedProperties",
                             "a draft 2020-12 keyword, not draft-07")}},
        WarningCase{"2019_keyword_in_2020", R"({"$recursiveRef":"#"})",
                    {Unknown("$recursiveRef", "/$recursiveRef",
                             "a draft 2019-09 keyword, not draft 2020-12; "
                             "use \"$dynamicRef\"")}}),
    [](const auto& info) { return std::string(info.param.name); });

INSTANTIATE_TEST_SUITE_P(
    NotWarned, WarningTest,
    ::testing::Values(
        WarningCase{"all_2020_12_keywords", R"({
          "$schema":"https://json-schema.org/draft/2020-12/schema",
          "$id":"https://example.com/s","$anchor":"a","$comment":"c",
          "$vocabulary":{},
          "$defs":{"x":{"$dynamicAnchor":"d"}},"definitions":{"y":{}},
          "$ref":"#/$defs/x","$dynamicRef":"#d",
          "prefixItems":[{}],"items":{},"contains":{},"minContains":0,
          "maxContains":9,"properties":{},"patternProperties":{},
          "additionalProperties":{},"propertyNames":{},
          "dependentSchemas":{},"dependentRequired":{},"if":{},"then":{},
          "else":{},"allOf":[{}],"anyOf":[{}],"oneOf":[{}],"not":false,
          "unevaluatedItems":{},"unevaluatedProperties":{},
          "type":"object","const":1,"enum":[1],"multipleOf":1,"maximum":9,
          "exclusiveMaximum":9,"minimum":0,"exclusiveMinimum":0,
          "maxLength":9,"minLength":0,"pattern":"x","maxItems":9,
          "minItems":0,"uniqueItems":true,"maxProperties":9,
          "minProperties":0,"required":[],"format":"date",
          "contentEncoding":"base64","contentMediaType":"application/json",
          "contentSchema":{},"title":"t","description":"d","default":1,
          "examples":[1],"deprecated":true,"readOnly":true,"writeOnly":false})",
                    {}},
        WarningCase{"all_draft7_keywords", R"({
          "$schema":"http://json-schema.org/draft-07/schema#",
          "$id":"https://example.com/s7","$comment":"c",
          "definitions":{"x":{}},"$defs":{"y":{}},
          "items":[{}],"additionalItems":{},"contains":{},"properties":{},
          "patternProperties":{},"additionalProperties":{},
          "propertyNames":{},"dependencies":{"a":["b"],"c":{}},"if":{},
          "then":{},"else":{},"allOf":[{}],"anyOf":[{}],"oneOf":[{}],
          "not":false,"type":"object","const":1,"enum":[1],"multipleOf":1,
          "maximum":9,"exclusiveMaximum":9,"minimum":0,"exclusiveMinimum":0,
          "maxLength":9,"minLength":0,"pattern":"x","maxItems":9,
          "minItems":0,"uniqueItems":true,"maxProperties":9,
          "minProperties":0,"required":[],"format":"date",
          "contentEncoding":"base64","contentMediaType":"application/json",
          "title":"t","description":"d","default":1,"examples":[1],
          "readOnly":true,"writeOnly":false})",
                    {}},
        WarningCase{"names_are_not_keywords", R"({
          "properties":{"requried":{},"maximun":{"type":"string"}},
          "patternProperties":{"^tpye":{}},
          "$defs":{"itmes":{}},
          "dependentSchemas":{"enun":{}},
          "dependentRequired":{"minimun":["formt"]},
          "required":["requried"]})",
                    {}},
        WarningCase{"values_are_not_schemas", R"({
          "enum":[{"requried":1}],"const":{"maximun":1},
          "default":{"tpye":1},"examples":[{"itmes":1}]})",
                    {}},
        WarningCase{"draft7_names_are_not_keywords",
                    R"({"$schema":"http://json-schema.org/draft-07/schema#",
                        "dependencies":{"requried":["maximun"]},
                        "definitions":{"tpye":{}}})",
                    {}},
        WarningCase{"builtin_metaschemas",
                    R"({"anyOf":[{"$ref":"https://json-schema.org/draft/2020-12/schema"},
                                 {"$ref":"http://json-schema.org/draft-07/schema#"}]})",
                    {}}),
    [](const auto& info) { return std::string(info.param.name); });

std::string UnknownFormat(const std::string& name, const std::string& pointer,
                          const std::string& hint = "") {
  return absl::StrCat("unknown format \"", name, "\" at ", pointer,
                      hint.empty() ? "" : absl::StrCat(" (", hint, ")"),
                      kIgnored);
}

INSTANTIATE_TEST_SUITE_P(
    Formats, WarningTest,
    ::testing::Values(
        WarningCase{"misspelt_email",
                    R"({"properties":{"to":{"type":"string","format":"emial"}}})",
                    {UnknownFormat("emial", "/properties/to/format",
                                   Meant("email"))}},
        WarningCase{"misspelt_date_time", R"({"format":"date_time"})",
                    {UnknownFormat("date_time", "/format", Meant("date-time"))}},
        WarningCase{"wrong_case", R"({"format":"UUID"})",
                    {UnknownFormat("UUID", "/format", Meant("uuid"))}},
        WarningCase{"draft7",
                    R"({"$schema":"http://json-schema.org/draft-07/schema#",
                        "items":{"format":"hostnme"}})",
                    {UnknownFormat("hostnme", "/items/format",
                                   Meant("hostname"))}},
        WarningCase{"private_format_without_suggestion",
                    R"({"format":"phone-number"})",
                    {UnknownFormat("phone-number", "/format")}},
        WarningCase{"known_formats",
                    R"({"allOf":[{"format":"email"},{"format":"idn-email"},
                        {"format":"uri-template"},{"format":"int64"},
                        {"format":"password"},{"format":"date-time"}]})",
                    {}},
        // Only where format is a keyword: not a property name or a value.
        WarningCase{"format_as_name_or_value",
                    R"({"properties":{"format":{"const":"emial"}},
                        "enum":[{"format":"emial"}]})",
                    {}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(WarningsTest, AssertedMisspeltFormatRefusalSuggestsTheName) {
  CompileOptions options;
  options.format_assertion = true;
  auto s = Schema::Compile(Json::parse(R"({"format":"emial"})"), options);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()),
              ::testing::HasSubstr(
                  "format \"emial\" cannot be asserted (did you mean "
                  "\"email\"? supported: "));
}

TEST(WarningsTest, WarnedMembersAreStillIgnored) {
  auto s = Schema::Compile(Json::parse(R"({"requried":["a"],"maximun":1})"));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)->warnings().size(), 2u);
  EXPECT_TRUE((*s)->IsValid(Json::parse("{}")));
  EXPECT_TRUE((*s)->IsValid(Json(5)));
}

TEST(WarningsTest, ListIsBounded) {
  Json schema = Json::object();
  for (int i = 0; i < 60; ++i) schema[absl::StrCat("x-vendor-", 10 + i)] = i;
  const std::vector<std::string> w = WarningsOf(schema.dump());
  ASSERT_EQ(w.size(), 51u);
  EXPECT_EQ(w[0], Unknown("x-vendor-10", "/x-vendor-10"));
  EXPECT_EQ(w[49], Unknown("x-vendor-59", "/x-vendor-59"));
  EXPECT_EQ(w[50], "... and 10 more unknown keywords");
}

TEST(WarningsTest, FormatWarningsShareTheBound) {
  Json schema = Json::object();
  for (int i = 0; i < 60; ++i) {
    schema["properties"][absl::StrCat("p", 10 + i)]["format"] = "emial";
  }
  const std::vector<std::string> w = WarningsOf(schema.dump());
  ASSERT_EQ(w.size(), 51u);
  EXPECT_EQ(w[0], UnknownFormat("emial", "/properties/p10/format",
                                Meant("email")));
  EXPECT_EQ(w[50], "... and 10 more unknown formats");
}

TEST(WarningsTest, KeywordOfAnUndeclaredVocabulary) {
  CompileOptions options;
  options.documents["https://example.com/meta"] = Json::parse(R"({
    "$schema":"https://json-schema.org/draft/2020-12/schema",
    "$id":"https://example.com/meta",
    "$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/core":true,
                   "https://json-schema.org/draft/2020-12/vocab/applicator":true}})");
  EXPECT_THAT(
      WarningsOf(R"({"$schema":"https://example.com/meta","type":"string",
                     "title":"t"})",
                 options),
      ElementsAre(Unknown("type", "/type",
                          "its vocabulary is not declared by the metaschema")));
}

TEST(WarningsTest, SuppliedDocumentsAreNamedByUri) {
  CompileOptions options;
  options.documents["https://example.com/defs.json"] =
      Json::parse(R"({"$defs":{"id":{"type":"string","minLenght":3}}})");
  EXPECT_THAT(
      WarningsOf(R"({"$ref":"https://example.com/defs.json#/$defs/id"})",
                 options),
      ElementsAre(Unknown("minLenght",
                          "https://example.com/defs.json#/$defs/id/minLenght",
                          Meant("minLength"))));
}

TEST(WarningsTest, UnreachableSubschemasAreNotInspected) {
  // Only where the compiler walks: nothing under an unreferenced $defs
  // entry is ever evaluated.
  EXPECT_THAT(WarningsOf(R"({"$defs":{"n":{"minimun":0}}})"), IsEmpty());
}

}  // namespace
}  // namespace schema
}  // namespace toolgate
