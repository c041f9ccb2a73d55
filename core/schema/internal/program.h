// Compiled form of a JSON Schema: a graph of Nodes, each a flat, pre-sorted
// vector of typed instructions. Built once by the compiler, then read-only.
//
// Thread-safety: immutable after compilation; shared freely across threads.
#ifndef TOOLGATE_CORE_SCHEMA_INTERNAL_PROGRAM_H_
#define TOOLGATE_CORE_SCHEMA_INTERNAL_PROGRAM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "core/json/strict_json.h"
#include "core/schema/internal/json_value.h"
#include "core/schema/schema.h"
#include "re2/re2.h"

namespace toolgate {
namespace schema {
namespace internal {

// Instance kinds, one bit each, so an instruction can say which kinds it
// applies to and the evaluator skips it with one AND.
enum Kind : uint8_t {
  kNull = 1,
  kBoolean = 2,
  kNumber = 4,
  kString = 8,
  kArray = 16,
  kObject = 32,
  kAnyKind = 63,
};
// Extra bit used only by the "type" keyword's mask.
constexpr uint8_t kIntegerType = 64;

enum class Op : uint8_t {
  kFalse,  // Boolean schema false.
  kType,
  kConst,
  kEnum,
  kMinimum,
  kMaximum,
  kExclusiveMinimum,
  kExclusiveMaximum,
  kMultipleOf,
  kMinLength,
  kMaxLength,
  kPattern,
  kFormat,
  kMinItems,
  kMaxItems,
  kUniqueItems,
  kMinProperties,
  kMaxProperties,
  kRequired,
  kDependentRequired,
  kItems,  // prefixItems/items/additionalItems in one pass.
  kContains,
  kMembers,  // properties/patternProperties/additionalProperties in one pass.
  kPropertyNames,
  kDependentSchemas,
  kRef,
  kDynamicRef,
  kAllOf,
  kAnyOf,
  kOneOf,
  kNot,
  kIf,
  kUnevaluatedItems,
  kUnevaluatedProperties,
};

struct Node;

struct PatternChild {
  std::shared_ptr<const RE2> re;  // Interned: shared across schemas.
  std::string source;  // As written in the schema.
  std::string schema_pointer;
  const Node* node = nullptr;
};

struct NamedChild {
  std::string name;
  const Node* node = nullptr;
  bool cheap = false;  // Subschema has scalar checks only: run it first.
};

struct Instr {
  Op op;
  uint8_t applies = kAnyKind;  // Instance kinds this instruction checks.
  uint8_t type_mask = 0;       // kType.
  bool flag = false;           // kUniqueItems: true; kMembers: has additional.
  std::string keyword;
  std::string schema_pointer;
  std::string expected;  // Precomputed text for violations.

  JsonNumber number;          // Numeric limits and multipleOf.
  Decimal decimal;            // multipleOf, exact.
  uint64_t count = 0;         // Lengths, item/property counts, minContains.
  uint64_t count2 = ~0ull;    // maxContains.
  int format = 0;             // FormatKind.

  const Node* node = nullptr;   // not, contains, items rest, propertyNames,
                                // if, $ref static target, unevaluated*.
  const Node* node2 = nullptr;  // then.
  const Node* node3 = nullptr;  // else.
  std::vector<const Node*> nodes;  // allOf/anyOf/oneOf, prefix items.
  std::vector<NamedChild> props;   // Sorted by name: properties,
                                   // dependentSchemas.
  std::vector<uint32_t> cheap_props;  // kMembers: indexes of cheap props.
  std::vector<PatternChild> patterns;
  std::string additional_pointer;  // kMembers: where additionalProperties is.
  std::vector<std::string> names;  // required.
  std::vector<std::pair<std::string, std::vector<std::string>>> dependent;
  std::vector<Json> values;                       // enum/const.
  absl::flat_hash_set<std::string> string_values;  // enum: strings only.
  bool enum_has_non_strings = false;
  std::string dynamic_anchor;  // kDynamicRef: non-empty when dynamic.
};

struct Node {
  std::vector<Instr> instrs;
  int id = 0;  // Index in Program::nodes.
  int resource = 0;
  bool is_false = false;
  bool has_unevaluated = false;
  std::string pointer;  // Where this subschema is, for messages.
};

// Per-resource table of $dynamicAnchor targets, for $dynamicRef.
struct ResourceAnchors {
  std::vector<NamedChild> dynamic;  // name -> node
  const Node* Find(const std::string& name) const {
    for (const auto& d : dynamic) {
      if (d.name == name) return d.node;
    }
    return nullptr;
  }
};

struct Program {
  std::vector<std::unique_ptr<Node>> nodes;
  std::vector<ResourceAnchors> resources;
  const Node* root = nullptr;
  bool uses_dynamic_scope = false;
  Dialect dialect = Dialect::kDraft2020_12;
  uint64_t max_steps = 0;
  // Compile-time warnings (unknown keywords); never read by the evaluator.
  std::vector<std::string> warnings;
  // PatternBytes of the patterns found compiled already (interned) when
  // this program was compiled: the part of its size that cost no work.
  size_t reused_pattern_bytes = 0;
  // Registry::values_read() of its compilation.
  size_t values_read = 0;
};

// Approximate heap bytes `program` holds (program_bytes.cc). An interned
// regex counts its size divided by the number of its users (kShared), or
// whole (kWhole: what the program costs alone, the same on every replica).
enum class Sharing { kShared, kWhole };
size_t ProgramBytes(const Program& program, Sharing sharing = Sharing::kShared);
// What one pattern counts whole in ProgramBytes.
size_t PatternBytes(const RE2& re);

}  // namespace internal
}  // namespace schema
}  // namespace toolgate

#endif  // TOOLGATE_CORE_SCHEMA_INTERNAL_PROGRAM_H_
