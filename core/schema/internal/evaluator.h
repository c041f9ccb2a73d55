// Runs a compiled Program against an instance.
//
// Thread-safety: an Evaluator is a per-call stack object; the Program it
// reads is shared and immutable.
#ifndef TOOLGATE_CORE_SCHEMA_INTERNAL_EVALUATOR_H_
#define TOOLGATE_CORE_SCHEMA_INTERNAL_EVALUATOR_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/schema/internal/program.h"
#include "core/schema/schema.h"

namespace toolgate {
namespace schema {
namespace internal {

// Where violations go; null for the fast boolean path.
struct Sink {
  std::vector<SchemaViolation>* out = nullptr;
  size_t max = 1;  // Stop collecting (and evaluating) at this many.
  size_t added = 0;
};

// Evaluates `instance` against `program`. Never returns true after running
// out of budget (steps or depth): that is reported as a violation instead.
// `steps`, when given, receives the work units spent.
bool Evaluate(const Program& program, const Json& instance, Sink* sink,
              uint64_t* steps = nullptr);

}  // namespace internal
}  // namespace schema
}  // namespace toolgate

#endif  // TOOLGATE_CORE_SCHEMA_INTERNAL_EVALUATOR_H_
