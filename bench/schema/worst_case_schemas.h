// Hostile schemas that toolgate accepts, each with a small instance built
// to make it work as hard as it can: the evaluation step budget, not a
// compile-time check, is what bounds them. Shared by
// //bench/schema:worst_case (which times them) and the schema tests (which
// assert their step counts stay within the budget).
//
// Thread-safety: pure function.
#ifndef TOOLGATE_BENCH_SCHEMA_WORST_CASE_SCHEMAS_H_
#define TOOLGATE_BENCH_SCHEMA_WORST_CASE_SCHEMAS_H_

#include <string>
#include <vector>

namespace toolgate {
namespace bench {

struct WorstCase {
  std::string name;
  std::string schema;    // Compiles with the default CompileOptions.
  std::string instance;  // At most a few hundred bytes.
};

std::vector<WorstCase> WorstCaseSchemas();

}  // namespace bench
}  // namespace toolgate

#endif  // TOOLGATE_BENCH_SCHEMA_WORST_CASE_SCHEMAS_H_
