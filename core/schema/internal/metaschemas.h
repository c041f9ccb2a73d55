// The metaschemas of draft 2020-12 (with its vocabulary metaschemas) and
// draft-07, built into the binary so $refs to them work offline.
#ifndef TOOLGATE_CORE_SCHEMA_INTERNAL_METASCHEMAS_H_
#define TOOLGATE_CORE_SCHEMA_INTERNAL_METASCHEMAS_H_

#include "absl/strings/string_view.h"

namespace toolgate {
namespace schema {
namespace internal {

// The JSON text of the metaschema at `uri` (no fragment), or nullptr.
const char* FindBuiltinMetaschema(absl::string_view uri);

}  // namespace internal
}  // namespace schema
}  // namespace toolgate

#endif  // TOOLGATE_CORE_SCHEMA_INTERNAL_METASCHEMAS_H_
