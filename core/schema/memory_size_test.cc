// compiled_bytes must track what a compiled schema really retains:
// caches of compiled schemas are bounded by it.
#include <malloc.h>

#include <string>
#include <vector>

#include "absl/base/config.h"
#include "absl/strings/str_cat.h"
#include "core/schema/schema.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace schema {
namespace {

size_t HeapInUse() {
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

struct Shape {
  std::string name;
  Json schema;
};

Json Nested(int depth, const std::string& key) {
  Json s = {{"type", "string"}};
  for (int i = 0; i < depth; ++i) {
    s = {{"type", "object"}, {"properties", {{key, s}}}, {"required", {key}}};
  }
  return s;
}

std::vector<Shape> Shapes() {
  std::vector<Shape> shapes;
  shapes.push_back({"deep_long_keys", Nested(60, std::string(300, 'k'))});
  Json any = Json::array();
  for (int i = 0; i < 5000; ++i) any.push_back(Json::object());
  shapes.push_back({"wide_any_of", {{"anyOf", any}}});
  Json values = Json::array();
  for (int i = 0; i < 5000; ++i) values.push_back(absl::StrCat("value_", i));
  shapes.push_back({"big_enum", {{"enum", values}}});
  Json props = Json::object();
  for (int i = 0; i < 2000; ++i) {
    props[absl::StrCat("p", i)] = {{"type", "integer"}, {"minimum", i}};
  }
  shapes.push_back({"many_properties", {{"properties", props}}});
  Json patterns = Json::object();
  for (int i = 0; i < 200; ++i) {
    patterns[absl::StrCat("^x", i, "[a-z]+$")] = {{"type", "string"}};
  }
  shapes.push_back({"patterns", {{"patternProperties", patterns}}});
  return shapes;
}

TEST(ApproximateMemoryBytes, TracksWhatACompiledSchemaRetains) {
#if defined(ABSL_HAVE_ADDRESS_SANITIZER) || defined(ABSL_HAVE_THREAD_SANITIZER)
  GTEST_SKIP() << "a sanitizer's allocator does not report to mallinfo2";
#endif
  for (const Shape& shape : Shapes()) {
    const size_t before = HeapInUse();
    absl::StatusOr<std::shared_ptr<const Schema>> compiled =
        Schema::Compile(shape.schema);
    ASSERT_TRUE(compiled.ok()) << shape.name << ": " << compiled.status();
    const size_t retained = HeapInUse() - before;
    const size_t estimate = (*compiled)->compiled_bytes();
    // Allocator rounding and the unused tails of hash tables make the
    // estimate inexact; within a factor of two keeps a byte budget honest.
    EXPECT_GE(estimate * 2, retained)
        << shape.name << ": " << estimate << " estimated, " << retained;
    EXPECT_LE(estimate, retained * 2)
        << shape.name << ": " << estimate << " estimated, " << retained;
  }
}

}  // namespace
}  // namespace schema
}  // namespace toolgate
