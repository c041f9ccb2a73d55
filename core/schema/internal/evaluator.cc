// The evaluator's core: the per-node loop and the keyword dispatch. Each
// keyword family is a separate function in an evaluator_*.cc file, so that
// Run stays a frameless jump table and a family's function is the only
// frame between two Evals.
#include "core/schema/internal/evaluator.h"

#include "core/schema/internal/evaluator_impl.h"

namespace toolgate {
namespace schema {
namespace internal {

bool Evaluator::Eval(const Node& n, const Json& v, Ann* parent) {
  if (aborted_) return false;
  if (++steps_ > p_.max_steps) return Abort(v, "evaluation step budget spent");
  if (depth_ >= kMaxDepth) return Abort(v, "evaluation nested too deeply");
  if (n.instrs.empty()) return true;
  ++depth_;
  bool pushed = false;
  if (p_.uses_dynamic_scope &&
      (scope_size_ == 0 || scope_[scope_size_ - 1] != n.resource)) {
    scope_[scope_size_++] = n.resource;
    pushed = true;
  }
  Ann local;
  Ann* a = parent || n.has_unevaluated ? &local : nullptr;
  const uint8_t kind = KindOf(v);
  bool ok = true;
  for (const Instr& ins : n.instrs) {
    if (!(ins.applies & kind)) continue;
    if (!Run(ins, v, kind, a)) {
      ok = false;
      if (Stop()) break;
    }
  }
  if (pushed) --scope_size_;
  --depth_;
  if (ok && parent) {
    steps_ += (local.props.size() + local.items.size()) / kBytesPerStep;
    parent->Merge(local);
  }
  return ok && !aborted_;
}

bool Evaluator::Run(const Instr& ins, const Json& v, uint8_t kind, Ann* a) {
  switch (ins.op) {
    case Op::kFalse: return False(ins, v);
    case Op::kType:
      // Nearly every node has a type: its common case costs one AND here.
      return (ins.type_mask & kind) != 0 || Type(ins, v, kind);
    case Op::kConst: return Const(ins, v);
    case Op::kEnum: return Enum(ins, v, kind);
    case Op::kMinimum: case Op::kMaximum: case Op::kExclusiveMinimum:
    case Op::kExclusiveMaximum: case Op::kMultipleOf:
      return Numeric(ins, v);
    case Op::kMinLength: case Op::kMaxLength: case Op::kPattern:
    case Op::kFormat:
      return Strings(ins, v);
    case Op::kMinItems: case Op::kMaxItems: case Op::kUniqueItems:
    case Op::kMinProperties: case Op::kMaxProperties:
      return Counts(ins, v);
    case Op::kRequired: case Op::kDependentRequired:
      return Required(ins, v);
    case Op::kItems: return Items(ins, v, a);
    case Op::kContains: return Contains(ins, v, a);
    case Op::kMembers: return Members(ins, v, a);
    case Op::kPropertyNames: return PropertyNames(ins, v);
    case Op::kDependentSchemas: return DependentSchemas(ins, v, a);
    case Op::kRef: return Eval(*ins.node, v, a);
    case Op::kDynamicRef: return DynamicRef(ins, v, a);
    case Op::kAllOf: return AllOf(ins, v, a);
    case Op::kAnyOf: case Op::kOneOf: return AnyOneOf(ins, v, a);
    case Op::kNot: return Not(ins, v);
    case Op::kIf: return If(ins, v, a);
    case Op::kUnevaluatedItems: case Op::kUnevaluatedProperties:
      return Unevaluated(ins, v, a);
  }
  return false;
}

bool Evaluate(const Program& program, const Json& instance, Sink* sink,
              uint64_t* steps) {
  Evaluator e(program, sink);
  const bool ok = e.Top(instance);
  if (steps) *steps = e.steps();
  return ok;
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
