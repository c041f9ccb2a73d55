#include "bench/schema/worst_case_schemas.h"

#include "absl/strings/str_cat.h"

namespace toolgate {
namespace bench {
namespace {

std::string Nested(const std::string& open, const std::string& close,
                   int depth) {
  std::string out;
  for (int i = 0; i < depth; ++i) out += open;
  out += "1";
  for (int i = 0; i < depth; ++i) out += close;
  return out;
}

// Every level of the instance evaluates `s` `width` times at the next
// level: width^depth evaluations, while each location's in-place fan-out
// stays tiny. `extra` adds keywords to every evaluation of `s`; `child`
// moves one level down: "items", or else the property "a".
std::string Multiplying(int width, const std::string& child,
                        const std::string& extra) {
  const std::string ref = R"({"$ref":"#/$defs/s"})";
  std::string all;
  for (int i = 0; i < width; ++i) {
    absl::StrAppend(&all, i ? "," : "",
                    child == "items"
                        ? absl::StrCat(R"({"items":)", ref, "}")
                        : absl::StrCat(R"({"properties":{"a":)", ref, "}}"));
  }
  return absl::StrCat(R"({"$defs":{"s":{"allOf":[)", all, "]", extra,
                      R"(}},"$ref":"#/$defs/s"})");
}

// n numbers from 100 (none equal to the instances' leaf 1).
std::string Numbers(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) absl::StrAppend(&out, i ? "," : "", 100 + i);
  return out;
}

// allOf chains over shared $refs, `levels` deep: the in-place fan-out of
// one location is 2^(levels + 1) - 1, 8191 with 12 levels, just under the
// default max_fanout (10000); every item of a 40-item array pays it.
WorstCase FanoutAtLimit() {
  const int levels = 12;
  std::string defs;
  for (int i = 0; i < levels; ++i) {
    absl::StrAppend(&defs, i ? "," : "", "\"d", i,
                    R"(":{"allOf":[{"$ref":"#/$defs/d)", i + 1,
                    R"("},{"$ref":"#/$defs/d)", i + 1, R"("}]})");
  }
  absl::StrAppend(&defs, ",\"d", levels, R"(":{"type":"integer"})");
  std::string items = "[";
  for (int i = 0; i < 40; ++i) absl::StrAppend(&items, i ? "," : "", "1");
  items += "]";
  return {"fanout_at_limit",
          absl::StrCat(R"({"$defs":{)", defs,
                       R"(},"items":{"$ref":"#/$defs/d0"}})"),
          items};
}

// 800 alternatives, each failing a number with 8 violations: a failed
// anyOf is explained by re-running every alternative with violations on.
// (4,000 until hardening round 2: each alternative compiles to ~4.6 KB, and
// 4,000 of them, 18.6 MB, are over CompileOptions::max_compiled_bytes.)
WorstCase ExplainedAnyOf() {
  std::string alternatives;
  for (int i = 0; i < 800; ++i) {
    absl::StrAppend(&alternatives, i ? "," : "",
                    R"({"type":"string","const":"x","enum":["y"],)",
                    R"("multipleOf":7,"minimum":5,"exclusiveMaximum":0,)",
                    R"("maximum":-1,"exclusiveMinimum":3})");
  }
  return {"anyOf_800_explained",
          absl::StrCat(R"({"anyOf":[)", alternatives, "]}"), "1"};
}

}  // namespace

std::vector<WorstCase> WorstCaseSchemas() {
  const std::string arrays = Nested("[", "]", 60);
  const std::string objects = Nested(R"({"a":)", "}", 30);
  return {
      {"depth_x2_items", Multiplying(2, "items", ""), arrays},
      {"depth_x8_items", Multiplying(8, "items", ""), arrays},
      FanoutAtLimit(),
      ExplainedAnyOf(),
      // Each evaluation compares the value with 5000 enum members.
      {"depth_x2_enum_5000",
       Multiplying(2, "items",
                   absl::StrCat(R"(,"not":{"enum":[)", Numbers(5000), "]}")),
       arrays},
      // No "required" case: a long list the instance satisfies needs
      // repeated names, which the metaschema refuses; with distinct names
      // a small instance stops at the first one missing.
      // Each member is matched against 200 patterns.
      {"depth_x2_patterns_200",
       Multiplying(2, "a",
                   absl::StrCat(R"(,"patternProperties":{)",
                                [] {
                                  std::string p;
                                  for (int i = 0; i < 200; ++i) {
                                    absl::StrAppend(&p, i ? "," : "", "\"^p", i,
                                                    "x[0-9]+$\":{}");
                                  }
                                  return p;
                                }(),
                                "}")),
       objects},
  };
}

}  // namespace bench
}  // namespace toolgate
