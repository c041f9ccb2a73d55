// Checks shared by the schema fuzz targets.
#ifndef TOOLGATE_TESTS_FUZZ_SCHEMA_SUPPORT_H_
#define TOOLGATE_TESTS_FUZZ_SCHEMA_SUPPORT_H_

#include <string>
#include <vector>

#include "core/schema/schema.h"
#include "tests/fuzz/fuzz_support.h"

namespace toolgate {
namespace fuzz {

// The three ways of asking agree, and what they report is consistent:
// IsValid == Validate (first error) == Validate (all errors); an invalid
// instance is explained by 1..max_errors violations whose instance pointers
// name locations inside the instance; a valid one has none. Returns the
// verdict.
inline bool CheckValidation(const schema::Schema& schema, const Json& instance) {
  constexpr size_t kMaxErrors = 8;
  const bool valid = schema.IsValid(instance);
  std::vector<schema::SchemaViolation> first;
  const bool first_valid = schema.Validate(
      instance, schema::ValidationMode::kFirstError, kMaxErrors, &first);
  std::vector<schema::SchemaViolation> all;
  const bool all_valid = schema.Validate(
      instance, schema::ValidationMode::kAllErrors, kMaxErrors, &all);
  FUZZ_CHECK(valid == first_valid && valid == all_valid,
             "IsValid=%d, Validate(first)=%d, Validate(all)=%d for %s", valid,
             first_valid, all_valid,
             TruncatedJson(instance, 300).c_str());
  if (valid) {
    FUZZ_CHECK(first.empty() && all.empty(),
               "a valid instance comes with %zu violation(s), first %s",
               first.size() + all.size(),
               (first.empty() ? all : first)[0].keyword.c_str());
    return true;
  }
  FUZZ_CHECK(first.size() == 1,
             "kFirstError reports %zu violations for an invalid instance",
             first.size());
  FUZZ_CHECK(!all.empty() && all.size() <= kMaxErrors,
             "kAllErrors reports %zu violations (max %zu)", all.size(),
             kMaxErrors);
  for (const std::vector<schema::SchemaViolation>* list : {&first, &all}) {
    for (const schema::SchemaViolation& v : *list) {
      FUZZ_CHECK(!v.keyword.empty() && !v.message.empty(),
                 "a violation without keyword or message (pointer %s)",
                 v.instance_pointer.c_str());
      FUZZ_CHECK(PointerResolves(instance, v.instance_pointer),
                 "violation pointer %s (keyword %s) is not in the instance %s",
                 v.instance_pointer.c_str(), v.keyword.c_str(),
                 TruncatedJson(instance, 300).c_str());
    }
  }
  return false;
}

}  // namespace fuzz
}  // namespace toolgate

#endif  // TOOLGATE_TESTS_FUZZ_SCHEMA_SUPPORT_H_
