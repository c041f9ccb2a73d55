// What schema_compile_fuzzer holds a compiled schema to: its dialect's
// metaschema, whole. Compile validates the document against it
// (core/schema/internal/metaschema_check.h), so nothing is taken out of
// the check: every value the metaschema refuses, in any subschema, live or
// dead, must be refused by Compile.
//
// The one case left out is by design: a document with an embedded
// resource that declares its own "$schema" may switch dialect there, and
// Compile judges that part by its own dialect's metaschema, which one
// metaschema over the whole document cannot do. The fuzzer skips the
// metaschema check for such documents (HasNestedSchemaKeyword).
#ifndef TOOLGATE_TESTS_FUZZ_METASCHEMA_CHECK_H_
#define TOOLGATE_TESTS_FUZZ_METASCHEMA_CHECK_H_

#include "core/json/strict_json.h"

namespace toolgate {
namespace fuzz {

// Some object below the root has a "$schema" member: an embedded resource
// may change dialect there, which one metaschema cannot judge.
inline bool HasNestedSchemaKeyword(const Json& value, bool root = true) {
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

}  // namespace fuzz
}  // namespace toolgate

#endif  // TOOLGATE_TESTS_FUZZ_METASCHEMA_CHECK_H_
