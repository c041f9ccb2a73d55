// Compiled size is bounded at compile time (hardening round 2, item 11): a
// pattern or schema whose program would be large is refused with
// schema_too_complex and a pointer, whatever construct makes it large and
// however short its text. Every refusal here is of a schema whose program
// (not text) is large; the accepted ones are the patterns real manifests
// use.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/schema/schema.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace schema {
namespace {

using ::testing::HasSubstr;

// A JSON string literal of `s` (patterns hold backslashes).
std::string Quote(const std::string& s) { return Json(s).dump(); }

std::string WithPattern(const std::string& pattern) {
  return absl::StrCat(R"({"type":"object","properties":{"x":{"type":"string",)",
                      R"("pattern":)", Quote(pattern), "}}}");
}

struct RefusedCase {
  std::string label;
  std::string schema;
  std::string pointer;  // Where the refusal points.
};

std::vector<RefusedCase> RefusedCases() {
  std::string many_patterns;  // Each under the pattern bound, not together.
  for (int i = 0; i < 4; ++i) {
    absl::StrAppend(&many_patterns, i ? "," : "", "\"p", i,
                    "\":", R"({"type":"string","pattern":)",
                    Quote(absl::StrCat("\\p{L}{16}", i)), "}");
  }
  std::string big_enum;  // ~0.5 MB of text, ~5 MB compiled.
  for (int i = 0; i < 60000; ++i) {
    absl::StrAppend(&big_enum, i ? "," : "", "\"v", i, "\"");
  }
  return {
      {"counted repetition of \\p{L}", WithPattern("\\p{L}{300}"),
       "/properties/x/pattern"},
      {"anchored", WithPattern("^\\p{L}{300}$"), "/properties/x/pattern"},
      {"just over the bound", WithPattern("\\p{L}{17}"),
       "/properties/x/pattern"},
      {"union of classes", WithPattern("[\\p{L}\\p{N}]{1,200}"),
       "/properties/x/pattern"},
      {"alternation of classes", WithPattern("(?:\\p{L}|\\p{N}|\\p{P}){1,300}"),
       "/properties/x/pattern"},
      {"negated property", WithPattern("\\P{L}{100}"), "/properties/x/pattern"},
      {"long property names", WithPattern("\\p{Letter}{50}"),
       "/properties/x/pattern"},
      {"huge class", WithPattern("[\\p{L}\\p{M}\\p{N}\\p{S}\\p{P}]{40}"),
       "/properties/x/pattern"},
      {"nested counted repetition", WithPattern("(\\p{L}{30}){30}"),
       "/properties/x/pattern"},
      {"nested counts past RE2's 1,000", WithPattern("(a{100}){100}"),
       "/properties/x/pattern"},
      {"ECMA dot repeated", WithPattern(".{1,1000}"), "/properties/x/pattern"},
      {"patternProperties key",
       R"({"type":"object","patternProperties":{"\\p{L}{300}":{}}})",
       "/patternProperties/\\p{L}{300}"},
      {"propertyNames pattern",
       absl::StrCat(R"({"propertyNames":{"pattern":)", Quote("\\p{L}{300}"),
                    "}}"),
       "/propertyNames/pattern"},
      {"behind a $ref",
       absl::StrCat(R"({"$defs":{"s":{"pattern":)", Quote("\\p{L}{300}"),
                    R"(}},"properties":{"x":{"$ref":"#/$defs/s"}}})"),
       "/$defs/s/pattern"},
      {"in an anyOf",
       absl::StrCat(R"({"anyOf":[{"type":"integer"},{"pattern":)",
                    Quote("\\p{L}{300}"), "}]}"),
       "/anyOf/1/pattern"},
      {"four patterns under the pattern bound, together over the schema's",
       absl::StrCat(R"({"properties":{)", many_patterns, "}}"), "(root)"},
      {"a large enum", absl::StrCat(R"({"enum":[)", big_enum, "]}"), "(root)"},
  };
}

TEST(SizeBound, LargeProgramsAreRefusedWithAPointer) {
  for (const RefusedCase& c : RefusedCases()) {
    SCOPED_TRACE(c.label);
    auto s = Schema::Compile(Json::parse(c.schema));
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(s.status().message(), HasSubstr("schema_too_complex"));
    EXPECT_THAT(s.status().message(), HasSubstr(c.pointer));
  }
}

TEST(SizeBound, PatternsRealManifestsUseStayAccepted) {
  for (const std::string pattern :
       {"^[A-Z]{2,3}-[0-9]{1,8}$", ".{1,255}", "^\\p{L}+$", "\\p{L}{16}",
        "^[\\p{L} '-]{1,10}$",
        "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-"
        "[0-9a-f]{4}-[0-9a-f]{12}$",
        "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$", "^\\p{Lu}\\p{Ll}{1,15}$",
        "[^\\s\\p{C}\\p{M}\\p{Z}\\u115F\\u1160\\u2800\\u3164\\uFFA0]"}) {
    SCOPED_TRACE(pattern);
    auto s = Schema::Compile(Json::parse(WithPattern(pattern)));
    EXPECT_TRUE(s.ok()) << s.status();
  }
}

TEST(SizeBound, BoundsAreOptions) {
  CompileOptions strict;
  strict.max_pattern_instructions = 100;
  auto s = Schema::Compile(Json::parse(WithPattern("^[a-z]{1,100}$")), strict);
  EXPECT_THAT(s.status().message(), HasSubstr("schema_too_complex"));
  EXPECT_THAT(s.status().message(), HasSubstr("max_pattern_instructions"));
  EXPECT_TRUE(
      Schema::Compile(Json::parse(WithPattern("^[a-z]+$")), strict).ok());

  CompileOptions small;
  small.max_compiled_bytes = 20000;
  std::string alternatives;
  for (int i = 0; i < 200; ++i) {
    absl::StrAppend(&alternatives, i ? "," : "", R"({"const":)", i, "}");
  }
  const Json wide =
      Json::parse(absl::StrCat(R"({"anyOf":[)", alternatives, "]}"));
  s = Schema::Compile(wide, small);
  EXPECT_THAT(s.status().message(), HasSubstr("schema_too_complex"));
  EXPECT_THAT(s.status().message(), HasSubstr("max_compiled_bytes"));
  ASSERT_TRUE(Schema::Compile(wide).ok());
  EXPECT_LE((*Schema::Compile(wide))->unshared_bytes(),
            CompileOptions().max_compiled_bytes);
}

// The bound counts every pattern whole, so whether a schema is accepted
// does not depend on what other schemas the process holds (replicas of a
// content-addressed snapshot must agree).
TEST(SizeBound, SharedPatternsCountWhole) {
  std::string props;
  for (int i = 0; i < 3; ++i) {
    absl::StrAppend(&props, i ? "," : "", "\"p", i,
                    "\":", R"({"type":"string","pattern":)",
                    Quote(absl::StrCat("^\\p{L}{12}", i, "$")), "}");
  }
  const Json schema =
      Json::parse(absl::StrCat(R"({"properties":{)", props, "}}"));
  auto alone = Schema::Compile(schema);
  ASSERT_TRUE(alone.ok()) << alone.status();
  const size_t whole = (*alone)->unshared_bytes();
  // Held by three more users, each program's share is a quarter of it.
  std::vector<std::shared_ptr<const Schema>> others;
  for (int i = 0; i < 3; ++i) others.push_back(*Schema::Compile(schema));
  EXPECT_LT((*alone)->compiled_bytes(), whole / 2);
  EXPECT_EQ((*alone)->unshared_bytes(), whole);
  CompileOptions just_under;
  just_under.max_compiled_bytes = whole - 1;
  EXPECT_FALSE(Schema::Compile(schema, just_under).ok());
  just_under.max_compiled_bytes = whole;
  EXPECT_TRUE(Schema::Compile(schema, just_under).ok());
}

// A pattern compiled (and interned) under a larger bound is refused under
// a smaller one: the bound is checked on every use of the cached program.
TEST(SizeBound, InternedPatternIsCheckedAgain) {
  const Json schema = Json::parse(WithPattern("^[a-z]{1,200}$"));
  auto loose = Schema::Compile(schema);
  ASSERT_TRUE(loose.ok());
  CompileOptions strict;
  strict.max_pattern_instructions = 50;
  EXPECT_THAT(Schema::Compile(schema, strict).status().message(),
              HasSubstr("schema_too_complex"));
}

// format "regex" asserts the instance is a pattern; checking it must not
// compile whatever program the instance spells out (that was a full RE2
// compile per string, outside any budget). A valid pattern too large to
// compile is still a valid pattern.
TEST(SizeBound, FormatRegexParsesWithoutCompilingLargePrograms) {
  CompileOptions options;
  options.format_assertion = true;
  auto s = Schema::Compile(Json::parse(R"({"format":"regex"})"), options);
  ASSERT_TRUE(s.ok());
  struct Case {
    std::string instance;
    bool valid;
  };
  for (const Case& c : std::vector<Case>{{"^[a-z]+$", true},
                                         {"\\p{L}{300}", true},
                                         {"(\\p{L}{30}){30}", true},
                                         {"[\\p{L}\\p{N}]{1,900}", true},
                                         {"(", false},
                                         {"a(?=b)", false},
                                         {"\\1", false},
                                         {"[z-a]", false}}) {
    SCOPED_TRACE(c.instance);
    EXPECT_EQ((*s)->IsValid(Json(c.instance)), c.valid);
  }
}

}  // namespace
}  // namespace schema
}  // namespace toolgate
