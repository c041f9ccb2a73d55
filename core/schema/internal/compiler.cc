// The compiler's driver: the worklist that turns subschema locations into
// Nodes, the keyword-family sequence each Node runs through, and the
// helpers every family uses. Families live in compiler_*.cc.
#include "core/schema/internal/compiler.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/schema/internal/compiler_impl.h"
#include "core/schema/internal/json_value.h"
#include "core/schema/internal/metaschema_check.h"

namespace toolgate {
namespace schema {
namespace internal {
namespace {

// Evaluation order within a node: cheap checks first, unevaluated* last.
int Priority(Op op) {
  switch (op) {
    case Op::kFalse: return 0;
    case Op::kType: return 1;
    case Op::kConst: case Op::kEnum: return 2;
    case Op::kUnevaluatedItems: return 40;
    case Op::kUnevaluatedProperties: return 41;
    case Op::kPattern: case Op::kFormat: case Op::kUniqueItems: return 5;
    case Op::kMembers: case Op::kItems: return 10;
    case Op::kContains: case Op::kPropertyNames: return 11;
    case Op::kDependentSchemas: return 12;
    case Op::kRef: case Op::kDynamicRef: return 13;
    case Op::kAllOf: return 14;
    case Op::kAnyOf: case Op::kOneOf: return 15;
    case Op::kNot: case Op::kIf: return 16;
    default: return 4;  // Cheap scalar checks.
  }
}

}  // namespace

absl::Status Compiler::Run(const Json& schema) {
  absl::Status s = registry_.AddRoot(schema);
  if (!s.ok()) return s;
  auto root = NodeFor(Location{0, ""});
  if (!root.ok()) return root.status();
  program_->root = *root;
  program_->dialect = registry_.resource(0).dialect;
  // Dynamic anchors may live in documents loaded while compiling, and
  // compiling them may load more: repeat until nothing new appears.
  size_t compiled = 0;
  do {
    s = Drain();
    if (!s.ok()) return s;
    compiled = program_->nodes.size();
    if (program_->uses_dynamic_scope) {
      for (int r = 0; r < registry_.resource_count(); ++r) {
        for (const auto& [name, ptr] : registry_.resource(r).dynamic_anchors) {
          auto n = NodeFor(Location{registry_.resource(r).root.doc, ptr});
          if (!n.ok()) return n.status();
        }
      }
    }
  } while (program_->nodes.size() != compiled || !pending_.empty());
  BuildDynamicTables();
  s = CheckCycles();
  if (!s.ok()) return s;
  Optimize();
  s = CheckFanout();
  if (!s.ok()) return s;
  // Programs live as long as their snapshot: no growth slack.
  for (auto& node : program_->nodes) node->instrs.shrink_to_fit();
  program_->nodes.shrink_to_fit();
  program_->warnings = unknown_.Warnings();
  return absl::OkStatus();
}

absl::StatusOr<const Node*> Compiler::NodeFor(const Location& loc) {
  const std::string key = absl::StrCat(loc.doc, ":", loc.pointer);
  auto it = by_location_.find(key);
  if (it != by_location_.end()) return it->second;
  if (program_->nodes.size() >= options_.max_schema_nodes) {
    return Refuse(registry_.Where(loc),
                  absl::StrCat("more than ", options_.max_schema_nodes,
                               " subschemas (max_schema_nodes)"));
  }
  auto node = std::make_unique<Node>();
  node->id = static_cast<int>(program_->nodes.size());
  node->resource = registry_.ResourceOf(loc);
  node->pointer = registry_.Where(loc);
  Node* raw = node.get();
  program_->nodes.push_back(std::move(node));
  by_location_.emplace(key, raw);
  pending_.emplace_back(raw, loc);
  return raw;
}

absl::StatusOr<const Node*> Compiler::SubAt(const Ctx& c,
                                            const std::string& ptr) {
  return NodeFor(Location{c.loc.doc, ptr});
}

absl::StatusOr<const Node*> Compiler::Sub(const Ctx& c, absl::string_view kw) {
  return SubAt(c, Join(c.loc.pointer, kw));
}

absl::Status Compiler::Drain() {
  while (!pending_.empty()) {
    auto [node, loc] = pending_.front();
    pending_.pop_front();
    absl::Status s = CompileNode(node, loc);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Compiler::CompileNode(Node* node, const Location& loc) {
  auto json = registry_.At(loc);
  if (!json.ok()) return Refuse(registry_.Where(loc), "no schema here");
  const Json& s = **json;
  if (s.is_boolean()) {
    if (!s.get<bool>()) {
      node->is_false = true;
      Instr ins;
      ins.op = Op::kFalse;
      ins.keyword = "false";
      ins.schema_pointer = node->pointer;
      ins.expected = "nothing (the schema here is false)";
      node->instrs.push_back(std::move(ins));
    }
    return absl::OkStatus();
  }
  if (!s.is_object()) {
    return Refuse(node->pointer, "a schema must be an object or a boolean");
  }
  const Resource& r = registry_.resource(node->resource);
  const ResInfo info{r.uri, r.dialect, r.vocab};
  Ctx c{node, loc, node->pointer, &info, &s};
  unknown_.Check(s, info.dialect, info.vocab, node->pointer);
  absl::Status st = Keywords(c);
  if (!st.ok()) return st;
  std::stable_sort(node->instrs.begin(), node->instrs.end(),
                   [](const Instr& a, const Instr& b) {
                     return Priority(a.op) < Priority(b.op);
                   });
  return absl::OkStatus();
}

// The order of the families is observable: it decides which refusal a
// schema with several bad keywords gets, and the order of subschema ids.
absl::Status Compiler::Keywords(const Ctx& c) {
  if (c.resource->dialect == Dialect::kDraft7 && c.schema->contains("$ref")) {
    return Ref(c, "$ref");  // draft-07: $ref overrides its siblings.
  }
  for (auto step :
       {&Compiler::Scalars, &Compiler::Numbers, &Compiler::StringLengths,
        &Compiler::Pattern, &Compiler::FormatAssertion, &Compiler::ArrayCounts,
        &Compiler::Items, &Compiler::Contains, &Compiler::ObjectCounts,
        &Compiler::PropertyNames, &Compiler::Members, &Compiler::Dependencies,
        &Compiler::Combinators, &Compiler::Conditionals, &Compiler::Refs,
        &Compiler::Unevaluated}) {
    absl::Status s = (this->*step)(c);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

bool Compiler::Has(const Ctx& c, absl::string_view kw, uint32_t vocab) const {
  if (c.resource->dialect == Dialect::kDraft2020_12 &&
      (c.resource->vocab & vocab) == 0) {
    return false;
  }
  return c.schema->contains(kw);
}

Instr& Compiler::Add(const Ctx& c, Op op, absl::string_view kw,
                     uint8_t applies) {
  c.node->instrs.emplace_back();
  Instr& ins = c.node->instrs.back();
  ins.op = op;
  ins.keyword = std::string(kw);
  ins.schema_pointer = Join(c.where, kw);
  ins.applies = applies;
  return ins;
}

absl::StatusOr<uint64_t> Compiler::Count(const Ctx& c,
                                         absl::string_view kw) const {
  const Json& v = (*c.schema)[std::string(kw)];
  if (!IsIntegral(v) || ToNumber(v).value < 0) {
    return Refuse(Join(c.where, kw), "must be a non-negative integer");
  }
  const long double x = ToNumber(v).value;
  return x > 1.8e19L ? ~0ull : static_cast<uint64_t>(x);
}

absl::StatusOr<JsonNumber> Compiler::Number(const Ctx& c,
                                            absl::string_view kw) const {
  const Json& v = (*c.schema)[std::string(kw)];
  if (!v.is_number()) return Refuse(Join(c.where, kw), "must be a number");
  return ToNumber(v);
}

absl::StatusOr<std::unique_ptr<Program>> CompileProgram(
    const Json& schema, const CompileOptions& options, MetaschemaCheck check) {
  auto program = std::make_unique<Program>();
  Compiler compiler(options, program.get());
  absl::Status s = compiler.Run(schema);
  if (!s.ok()) return s;

  // After the compile, so that every refusal the compiler makes keeps its
  // own message; this adds what only the metaschema refuses.
  if (check == MetaschemaCheck::kOn) {
    s = CheckAgainstMetaschemas(compiler.registry());
    if (!s.ok()) return s;
  }
  program->values_read = compiler.registry().values_read();
  return program;
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
