// Compiles a schema document into a Program (see program.h).
//
// Thread-safety: one Compiler per compilation.
#ifndef TOOLGATE_CORE_SCHEMA_INTERNAL_COMPILER_H_
#define TOOLGATE_CORE_SCHEMA_INTERNAL_COMPILER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "core/schema/internal/program.h"
#include "core/schema/schema.h"

namespace toolgate {
namespace schema {
namespace internal {

// Whether a compiled document is also held to its dialect's metaschema
// (metaschema_check.h). kOff only compiles the built-in metaschemas.
enum class MetaschemaCheck { kOn, kOff };

absl::StatusOr<std::unique_ptr<Program>> CompileProgram(
    const Json& schema, const CompileOptions& options,
    MetaschemaCheck check = MetaschemaCheck::kOn);

}  // namespace internal
}  // namespace schema
}  // namespace toolgate

#endif  // TOOLGATE_CORE_SCHEMA_INTERNAL_COMPILER_H_
