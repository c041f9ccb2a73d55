// Holds a compiled schema document to its dialect's metaschema.
//
// The compiler refuses what it reads and cannot use, but it never reads
// parts that cannot affect validation (annotations, definitions no $ref
// reaches, "then" without "if") and it gives some malformed values a
// harmless meaning ("type": [] matches nothing). A schema author still
// wants to hear of those mistakes before the dead part comes alive with
// the next edit, so after a successful compile the whole document is
// validated against the built-in metaschema of its dialect, as AJV does by
// default.
//
// Thread-safety: the built-in metaschemas compile once per process, on
// first use (function-local statics); the check itself is a pure function.
#ifndef TOOLGATE_CORE_SCHEMA_INTERNAL_METASCHEMA_CHECK_H_
#define TOOLGATE_CORE_SCHEMA_INTERNAL_METASCHEMA_CHECK_H_

#include "absl/status/status.h"
#include "core/schema/internal/registry.h"

namespace toolgate {
namespace schema {
namespace internal {

// Validates every document the compilation read (the schema given to
// Compile and each document a $ref loaded from CompileOptions; not the
// built-in metaschemas) against the built-in metaschema of each dialect it
// uses: the document's, and that of every embedded resource with its own
// "$schema" (checked on its own, so an embedded draft-07 resource is not
// judged by 2020-12 rules). A custom "$schema" is judged by the built-in
// metaschema of the dialect it resolves to: that is the dialect whose
// keywords toolgate evaluates. Refusals are INVALID_ARGUMENT "schema
// refused at <where>: ..." naming the offending member (a JSON Pointer,
// prefixed by "uri#" in another document) and what the metaschema
// requires there.
absl::Status CheckAgainstMetaschemas(const Registry& registry);

}  // namespace internal
}  // namespace schema
}  // namespace toolgate

#endif  // TOOLGATE_CORE_SCHEMA_INTERNAL_METASCHEMA_CHECK_H_
