// How much memory a compiled Program holds, approximately.
//
// Caches of compiled schemas are bounded by bytes, not entries: schemas
// of the same text size can compile to programs thousands of times apart
// (JSON Pointers are stored per instruction, so deep nesting costs the
// square of its depth). This walks the program and counts what it owns.
#ifndef TOOLGATE_CORE_SCHEMA_INTERNAL_PROGRAM_SIZE_H_
#define TOOLGATE_CORE_SCHEMA_INTERNAL_PROGRAM_SIZE_H_

#include <cstddef>

#include "core/schema/internal/program.h"

namespace toolgate {
namespace schema {
namespace internal {

// Heap bytes owned by `program`, including an estimate of malloc's
// per-allocation overhead and of each RE2's compiled program. Not counted:
// RE2's lazily built DFA caches, which grow while matching.
size_t ApproximateProgramBytes(const Program& program);

}  // namespace internal
}  // namespace schema
}  // namespace toolgate

#endif  // TOOLGATE_CORE_SCHEMA_INTERNAL_PROGRAM_SIZE_H_
