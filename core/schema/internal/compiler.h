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

absl::StatusOr<std::unique_ptr<Program>> CompileProgram(
    const Json& schema, const CompileOptions& options);

}  // namespace internal
}  // namespace schema
}  // namespace toolgate

#endif  // TOOLGATE_CORE_SCHEMA_INTERNAL_COMPILER_H_
