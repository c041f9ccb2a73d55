// Hostile schemas that are small but exponential to evaluate: refused at
// compile time when the blow-up is in place (schema_too_complex), bounded
// by the step budget when it multiplies across instance depth. Benign
// schemas that are deep or wide but linear stay accepted.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/schema/worst_case_schemas.h"
#include "core/schema/schema.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace schema {
namespace {

using ::testing::HasSubstr;

// `levels` definitions d0..d{levels-1}, each applying the next `width`
// times through `keyword` ("allOf", "anyOf", "oneOf"), ending in `leaf`.
std::string Chain(const std::string& keyword, int levels, int width,
                  const std::string& leaf = R"({"type":"integer"})") {
  std::string defs;
  for (int i = 0; i < levels; ++i) {
    std::string refs;
    for (int w = 0; w < width; ++w) {
      absl::StrAppend(&refs, w ? "," : "", R"({"$ref":"#/$defs/d)", i + 1,
                      R"("})");
    }
    absl::StrAppend(&defs, "\"d", i, "\":{\"", keyword, "\":[", refs, "]},");
  }
  return absl::StrCat(R"({"$defs":{)", defs, "\"d", levels, "\":", leaf,
                      R"(},"$ref":"#/$defs/d0"})");
}

struct TooComplexCase {
  const char* name;
  std::string schema;
  const char* pointer;  // The smallest subschema over the bound.
};

class TooComplexTest : public ::testing::TestWithParam<TooComplexCase> {};

TEST_P(TooComplexTest, ExponentialInPlaceFanOutIsRefusedAtCompile) {
  auto s = Schema::Compile(Json::parse(GetParam().schema));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.status().message()),
              HasSubstr("schema_too_complex"));
  EXPECT_THAT(
      std::string(s.status().message()),
      HasSubstr(absl::StrCat("schema refused at ", GetParam().pointer, ": ")));
}

std::string IfChain(int levels) {
  std::string defs;
  for (int i = 0; i < levels; ++i) {
    absl::StrAppend(&defs, "\"d", i, R"(":{"if":{"$ref":"#/$defs/d)", i + 1,
                    R"("},"then":{"$ref":"#/$defs/d)", i + 1, R"("}},)");
  }
  return absl::StrCat(R"({"$defs":{)", defs, "\"d", levels,
                      R"(":{"minimum":0}},"$ref":"#/$defs/d0"})");
}

std::string DependentSchemasChain(int levels) {
  std::string defs;
  for (int i = 0; i < levels; ++i) {
    absl::StrAppend(&defs, "\"d", i,
                    R"(":{"dependentSchemas":{"a":{"$ref":"#/$defs/d)", i + 1,
                    R"("},"b":{"$ref":"#/$defs/d)", i + 1, R"("}}},)");
  }
  return absl::StrCat(R"({"$defs":{)", defs, "\"d", levels,
                      R"(":{"required":["a"]}},"$ref":"#/$defs/d0"})");
}

INSTANTIATE_TEST_SUITE_P(
    Hostile, TooComplexTest,
    ::testing::Values(
        // 100 bytes a level; 2^40 evaluations of a one-byte instance.
        TooComplexCase{"allOf_refs_doubling", Chain("allOf", 40, 2),
                       "/$defs/d27"},
        TooComplexCase{"anyOf_chain", Chain("anyOf", 40, 2), "/$defs/d27"},
        TooComplexCase{"oneOf_chain", Chain("oneOf", 40, 2), "/$defs/d27"},
        TooComplexCase{"allOf_tripling", Chain("allOf", 12, 3), "/$defs/d3"},
        TooComplexCase{"if_then_chain", IfChain(40), "/$defs/d27"},
        TooComplexCase{"dependentSchemas_chain", DependentSchemasChain(40),
                       "/$defs/d27"},
        TooComplexCase{"draft7_definitions",
                       R"({"$schema":"http://json-schema.org/draft-07/schema#",
                           "definitions":{)" +
                           [] {
                             std::string d;
                             for (int i = 0; i < 30; ++i) {
                               absl::StrAppend(
                                   &d, "\"d", i,
                                   R"(":{"anyOf":[{"$ref":"#/definitions/d)",
                                   i + 1, R"("},{"$ref":"#/definitions/d)",
                                   i + 1, R"("}]},)");
                             }
                             return d;
                           }() +
                           R"("d30":{"type":"string"}},
                           "$ref":"#/definitions/d0"})",
                       "/definitions/d17"},
        // Fan-out reached inside a property: still refused, since that
        // property's value is one instance location.
        TooComplexCase{"inside_property",
                       R"({"properties":{"p":{"$ref":"#/$defs/d0"}},)" +
                           Chain("anyOf", 30, 2).substr(1),
                       "/$defs/d17"}),
    [](const auto& info) { return std::string(info.param.name); });

struct AcceptedCase {
  const char* name;
  std::string schema;
  std::string valid;    // An instance that must be valid.
  std::string invalid;  // One that must not be.
};

class BenignTest : public ::testing::TestWithParam<AcceptedCase> {};

TEST_P(BenignTest, DeepOrWideButLinearSchemaStaysAccepted) {
  auto s = Schema::Compile(Json::parse(GetParam().schema));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE((*s)->IsValid(Json::parse(GetParam().valid)));
  EXPECT_FALSE((*s)->IsValid(Json::parse(GetParam().invalid)));
}

// `n` properties, each a $ref to one shared definition with a 50-way anyOf:
// the shared work is per property value, a different location each time.
std::string SharedAcrossProperties(int n) {
  std::string props, alternatives;
  for (int i = 0; i < n; ++i) {
    absl::StrAppend(&props, i ? "," : "", "\"p", i,
                    R"(":{"$ref":"#/$defs/code"})");
  }
  for (int i = 0; i < 50; ++i) {
    absl::StrAppend(&alternatives, i ? "," : "", R"({"const":"c)", i, "\"}");
  }
  return absl::StrCat(R"({"$defs":{"code":{"anyOf":[)", alternatives,
                      R"(]}},"properties":{)", props, "}}");
}

INSTANTIATE_TEST_SUITE_P(
    Real, BenignTest,
    ::testing::Values(
        // 500 levels of single $ref/allOf: linear.
        AcceptedCase{"deep_allOf_chain", Chain("allOf", 500, 1), "1", "1.5"},
        AcceptedCase{"deep_anyOf_chain", Chain("anyOf", 500, 1), "1", "\"x\""},
        // One level of 2000 alternatives over one shared $ref.
        AcceptedCase{"wide_anyOf", Chain("anyOf", 1, 2000), "1", "\"x\""},
        // Doubling, but only up to the bound: 12 levels is 2^13 - 1 = 8191
        // evaluations (13 levels are refused).
        AcceptedCase{"doubling_under_bound", Chain("allOf", 12, 2), "1",
                     "\"x\""},
        AcceptedCase{"shared_definition_in_1000_properties",
                     SharedAcrossProperties(1000), R"({"p1":"c7"})",
                     R"({"p999":"c50"})"},
        // Recursion that moves into the instance at each level.
        AcceptedCase{"recursive_tree",
                     R"({"type":"object","properties":{"children":{
                         "type":"array","items":{"$ref":"#"}},
                         "name":{"type":"string"}},"required":["name"]})",
                     R"({"name":"a","children":[{"name":"b","children":[]}]})",
                     R"({"name":"a","children":[{"children":[]}]})"},
        AcceptedCase{
            "metaschema_2020_12",
            R"({"$ref":"https://json-schema.org/draft/2020-12/schema"})",
            R"({"type":"object","properties":{"a":{"anyOf":[
                         {"type":"string"},{"$ref":"#"}]}}})",
            R"({"type":"text"})"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(FanoutTest, LimitIsAnOption) {
  CompileOptions options;
  options.max_fanout = 100;
  auto refused = Schema::Compile(Json::parse(Chain("anyOf", 1, 100)), options);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("more than 100 subschema evaluations"));
  EXPECT_TRUE(
      Schema::Compile(Json::parse(Chain("anyOf", 1, 40)), options).ok());
}

// Fan-out that multiplies across instance depth is invisible to the
// compile-time bound; the step budget stops it, and each step costs about
// the same whatever the schema makes a step do.
// A step is about 10 ns of CPU (bench/README.md, "Evaluation budget"):
// a million steps is the ~10 ms a call may cost.
constexpr uint64_t kTenMillisecondsOfSteps = 1000000;

TEST(BudgetTest, WorstAcceptedSchemasStopWithinTheDefaultBudget) {
  const uint64_t budget = CompileOptions().max_evaluation_steps;
  ASSERT_LE(budget, kTenMillisecondsOfSteps);
  for (const auto& c : bench::WorstCaseSchemas()) {
    SCOPED_TRACE(c.name);
    ASSERT_LE(c.instance.size(), 200u);
    auto s = Schema::Compile(Json::parse(c.schema));
    ASSERT_TRUE(s.ok()) << s.status();
    const Json instance = Json::parse(c.instance);
    const uint64_t steps = (*s)->EvaluationSteps(instance);
    // At most one keyword's work past the budget before evaluation stops.
    EXPECT_LE(steps, budget + 5000);
    EXPECT_LE(steps, kTenMillisecondsOfSteps);
    if (steps <= budget) continue;
    EXPECT_FALSE((*s)->IsValid(instance));
    std::vector<SchemaViolation> out;
    EXPECT_FALSE(
        (*s)->Validate(instance, ValidationMode::kAllErrors, 20, &out));
    ASSERT_FALSE(out.empty());
    EXPECT_EQ(out.back().keyword, "evaluation_limit");
  }
}

TEST(BudgetTest, DepthMultiplyingSchemaIsStoppedNotAccepted) {
  auto s = Schema::Compile(Json::parse(
      R"({"$defs":{"s":{"allOf":[{"items":{"$ref":"#/$defs/s"}},
          {"items":{"$ref":"#/$defs/s"}}]}},"$ref":"#/$defs/s"})"));
  ASSERT_TRUE(s.ok()) << s.status();
  std::string deep;
  for (int i = 0; i < 60; ++i) deep += "[";
  for (int i = 0; i < 60; ++i) deep += "]";
  EXPECT_FALSE((*s)->IsValid(Json::parse(deep)));
  EXPECT_EQ((*s)->EvaluationSteps(Json::parse(deep)),
            CompileOptions().max_evaluation_steps + 1);
  // Shallow instances of the same schema are fine.
  EXPECT_TRUE((*s)->IsValid(Json::parse("[[[]]]")));
}

// Steps count work the schema makes long, not only evaluations.
TEST(BudgetTest, StepsChargeSchemaSizedLoops) {
  // Distinct required names (repeated ones are refused: the metaschema
  // wants unique items), all present, so that every one is looked up.
  std::string numbers, names, members, patterns;
  for (int i = 0; i < 1000; ++i) {
    absl::StrAppend(&numbers, i ? "," : "", 100 + i);
    absl::StrAppend(&names, i ? "," : "", "\"a", i, "\"");
    absl::StrAppend(&members, i ? "," : "", "\"a", i, "\":1");
    absl::StrAppend(&patterns, i ? "," : "", "\"^p", i, "$\":{}");
  }
  struct Case {
    std::string schema, instance;
    uint64_t at_least;
  } cases[] = {
      {absl::StrCat(R"({"not":{"enum":[)", numbers, "]}}"), "1", 500},
      {absl::StrCat(R"({"required":[)", names, "]}"),
       absl::StrCat("{", members, "}"), 1000},
      {absl::StrCat(R"({"patternProperties":{)", patterns, "}}"), R"({"a":1})",
       2000},
      {R"({"pattern":"a"})", absl::StrCat("\"", std::string(8000, 'b'), "\""),
       1000},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.schema.substr(0, 40));
    auto s = Schema::Compile(Json::parse(c.schema));
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_GE((*s)->EvaluationSteps(Json::parse(c.instance)), c.at_least);
  }
}

}  // namespace
}  // namespace schema
}  // namespace toolgate
