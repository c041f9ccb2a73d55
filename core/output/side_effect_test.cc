#include "core/output/side_effect.h"

#include <string>

#include "gtest/gtest.h"

namespace toolgate {
namespace output {
namespace {

struct AnnotationCase {
  std::string annotations_json;
  SideEffect expected;
};

TEST(SideEffect, FromMcpAnnotations) {
  const AnnotationCase cases[] = {
      {"null", SideEffect::kWrite},
      {"{}", SideEffect::kWrite},
      {"[]", SideEffect::kWrite},
      {R"({"readOnlyHint":true})", SideEffect::kRead},
      {R"({"readOnlyHint":true,"destructiveHint":false})", SideEffect::kRead},
      {R"({"readOnlyHint":false})", SideEffect::kWrite},
      {R"({"readOnlyHint":"true"})", SideEffect::kWrite},
      {R"({"readOnlyHint":1})", SideEffect::kWrite},
      {R"({"destructiveHint":true})", SideEffect::kDestructive},
      {R"({"destructiveHint":"yes"})", SideEffect::kWrite},
      {R"({"readOnlyHint":true,"destructiveHint":true})",
       SideEffect::kDestructive},
      {R"({"idempotentHint":true})", SideEffect::kWrite},
  };
  for (const AnnotationCase& c : cases) {
    auto annotations = ParseStrictJson(c.annotations_json);
    ASSERT_TRUE(annotations.ok());
    EXPECT_EQ(SideEffectFromMcpAnnotations(*annotations), c.expected)
        << c.annotations_json;
  }
  // A default-constructed Json (annotations absent) is null.
  EXPECT_EQ(SideEffectFromMcpAnnotations(Json()), SideEffect::kWrite);
}

TEST(SideEffect, ParsesManifestNamesExactly) {
  for (SideEffect e :
       {SideEffect::kRead, SideEffect::kWrite, SideEffect::kDestructive}) {
    auto parsed = ParseSideEffect(SideEffectName(e));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, e);
  }
  for (const char* bad : {"", "READ", "readonly", "delete", " read"}) {
    EXPECT_EQ(ParseSideEffect(bad).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
}

TEST(SideEffect, OnlyReadToolsRunWhenReadOnly) {
  EXPECT_TRUE(AllowedWhenReadOnly(SideEffect::kRead));
  EXPECT_FALSE(AllowedWhenReadOnly(SideEffect::kWrite));
  EXPECT_FALSE(AllowedWhenReadOnly(SideEffect::kDestructive));
}

}  // namespace
}  // namespace output
}  // namespace toolgate
