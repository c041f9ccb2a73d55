// The Compiler class behind CompileProgram(), shared by the compiler*.cc
// files that split it by keyword family; nothing outside the compiler uses
// it.
//
// Thread-safety: one Compiler per compilation.
#ifndef TOOLGATE_CORE_SCHEMA_INTERNAL_COMPILER_IMPL_H_
#define TOOLGATE_CORE_SCHEMA_INTERNAL_COMPILER_IMPL_H_

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/schema/internal/keywords.h"
#include "core/schema/internal/program.h"
#include "core/schema/internal/refuse.h"
#include "core/schema/internal/registry.h"
#include "core/schema/schema.h"

namespace toolgate {
namespace schema {
namespace internal {

class Compiler {
 public:
  Compiler(const CompileOptions& options, Program* program)
      : options_(options), registry_(options), program_(program) {}

  absl::Status Run(const Json& schema);

  // The documents and resources of the last Run.
  const Registry& registry() const { return registry_; }

 private:
  // Where a keyword of the node being compiled lives, and its context.
  // Copied out of the registry, which may grow (and move) while a $ref
  // loads another document.
  struct ResInfo {
    std::string uri;
    Dialect dialect;
    uint32_t vocab;
  };
  struct Ctx {
    Node* node;
    Location loc;
    std::string where;  // Registry::Where(loc).
    const ResInfo* resource;
    const Json* schema;
  };
  // A dependency keyword, and whether its entries may be property lists
  // (dependentRequired) and/or schemas (dependentSchemas).
  struct DependencyKeyword {
    absl::string_view kw;
    bool names, schemas;
    uint32_t vocab;
  };

  // compiler.cc: the worklist of subschemas, and what every keyword uses.
  absl::StatusOr<const Node*> NodeFor(const Location& loc);
  absl::StatusOr<const Node*> Sub(const Ctx& c, absl::string_view kw);
  absl::StatusOr<const Node*> SubAt(const Ctx& c, const std::string& ptr);
  absl::Status Drain();
  absl::Status CompileNode(Node* node, const Location& loc);
  absl::Status Keywords(const Ctx& c);
  Instr& Add(const Ctx& c, Op op, absl::string_view kw, uint8_t applies);
  bool Has(const Ctx& c, absl::string_view kw, uint32_t vocab) const;
  absl::StatusOr<uint64_t> Count(const Ctx& c, absl::string_view kw) const;
  absl::StatusOr<JsonNumber> Number(const Ctx& c, absl::string_view kw) const;

  // compiler_validation.cc: assertions on the value itself.
  absl::Status Scalars(const Ctx& c);
  absl::Status Type(const Ctx& c, const Json& v);
  absl::Status Enum(const Ctx& c);
  absl::Status Numbers(const Ctx& c);
  absl::Status StringLengths(const Ctx& c);
  absl::Status ArrayCounts(const Ctx& c);
  absl::Status ObjectCounts(const Ctx& c);

  // compiler_formats.cc.
  absl::Status Pattern(const Ctx& c);
  // InternEcmaRegex under the options' bound, tallying what was found
  // compiled already (program_->reused_pattern_bytes).
  absl::StatusOr<std::shared_ptr<const RE2>> Regex(absl::string_view pattern,
                                                   const std::string& where);
  absl::Status FormatAssertion(const Ctx& c);

  // compiler_applicators.cc: keywords with subschemas.
  absl::Status Items(const Ctx& c);
  absl::Status Contains(const Ctx& c);
  absl::Status PropertyNames(const Ctx& c);
  absl::Status Members(const Ctx& c);
  absl::Status MemberSchemas(const Ctx& c, absl::string_view kw, Instr* ins,
                             std::vector<std::string>* allowed);
  absl::Status Dependencies(const Ctx& c);
  absl::Status Dependency(const Ctx& c, const DependencyKeyword& src,
                          const std::string& prop, const Json& dep,
                          int* names, int* schemas);
  absl::Status Combinators(const Ctx& c);
  absl::Status Conditionals(const Ctx& c);
  absl::Status Unevaluated(const Ctx& c);

  // compiler_refs.cc: $ref, $dynamicRef and the dynamic scope.
  absl::Status Refs(const Ctx& c);
  absl::Status Ref(const Ctx& c, absl::string_view kw);
  void BuildDynamicTables();

  // compiler_graph.cc: passes over the finished graph.
  absl::Status CheckCycles();
  void Optimize();
  absl::Status CheckFanout();
  absl::Status RecordBound(const Node& node, std::vector<uint64_t>* bound);

  const CompileOptions& options_;
  Registry registry_;
  Program* program_;
  absl::flat_hash_map<std::string, Node*> by_location_;
  std::deque<std::pair<Node*, Location>> pending_;
  UnknownKeywords unknown_;  // Members no keyword here; for warnings().
};

}  // namespace internal
}  // namespace schema
}  // namespace toolgate

#endif  // TOOLGATE_CORE_SCHEMA_INTERNAL_COMPILER_IMPL_H_
