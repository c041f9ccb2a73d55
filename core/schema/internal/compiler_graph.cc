// Passes over the finished graph of Nodes, once every subschema is
// compiled: refusing in-place cycles and exponential in-place fan-out,
// then cheap rewrites for the evaluator.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/schema/internal/compiler_impl.h"

namespace toolgate {
namespace schema {
namespace internal {
namespace {

struct Edge {
  const Node* to;
  const std::string* via;
};

// Subschemas `n` applies to the same instance location (in place).
std::vector<Edge> InPlaceEdges(const Program& program, const Node& n) {
  std::vector<Edge> out;
  for (const Instr& ins : n.instrs) {
    switch (ins.op) {
      case Op::kRef: case Op::kNot:
        out.push_back({ins.node, &ins.schema_pointer});
        break;
      case Op::kDynamicRef:
        out.push_back({ins.node, &ins.schema_pointer});
        if (ins.dynamic_anchor.empty()) break;
        for (const ResourceAnchors& r : program.resources) {
          if (const Node* t = r.Find(ins.dynamic_anchor)) {
            out.push_back({t, &ins.schema_pointer});
          }
        }
        break;
      case Op::kAllOf: case Op::kAnyOf: case Op::kOneOf:
        for (const Node* t : ins.nodes) out.push_back({t, &ins.schema_pointer});
        break;
      case Op::kIf:
        for (const Node* t : {ins.node, ins.node2, ins.node3}) {
          if (t) out.push_back({t, &ins.schema_pointer});
        }
        break;
      case Op::kDependentSchemas:
        for (const auto& p : ins.props) {
          out.push_back({p.node, &ins.schema_pointer});
        }
        break;
      default:
        break;
    }
  }
  return out;
}

// Scalar checks only, including a const or enum: the shape of a oneOf
// discriminator, worth checking before walking heavy siblings.
bool Discriminator(const Node& n) {
  bool pins_value = false;
  for (const Instr& ins : n.instrs) {
    if (ins.op == Op::kConst || ins.op == Op::kEnum) pins_value = true;
    switch (ins.op) {
      case Op::kMembers: case Op::kItems: case Op::kContains:
      case Op::kPropertyNames: case Op::kDependentSchemas: case Op::kRef:
      case Op::kDynamicRef: case Op::kAllOf: case Op::kAnyOf: case Op::kOneOf:
      case Op::kNot: case Op::kIf: case Op::kUnevaluatedItems:
      case Op::kUnevaluatedProperties: case Op::kUniqueItems:
        return false;
      default:
        break;
    }
  }
  return pins_value;
}

// A node that is nothing but a $ref behaves exactly like its target
// (errors are reported at the target's keywords either way), unless
// $dynamicRef makes the resource boundary it crosses observable.
const Node* Chase(const Node* n) {
  for (int hops = 0; hops < 64 && n->instrs.size() == 1 &&
                     n->instrs[0].op == Op::kRef && n->instrs[0].node != n;
       ++hops) {
    n = n->instrs[0].node;
  }
  return n;
}


uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  return a > ~uint64_t{0} - b ? ~uint64_t{0} : a + b;
}

// An upper bound on the evaluations (Eval calls) that evaluating `n` makes
// at one instance location, itself included, given the bound of every
// subschema it applies in place (`bound`, by node id). Mirrors the
// evaluator: every allOf/anyOf/oneOf alternative may run, "if" runs with
// one of then/else, $dynamicRef runs one of its possible targets.
uint64_t InPlaceBound(const Program& program, const Node& n,
                      const std::vector<uint64_t>& bound) {
  uint64_t total = 1;
  auto at = [&bound](const Node* t) { return t ? bound[t->id] : 0; };
  for (const Instr& ins : n.instrs) {
    uint64_t add = 0;
    switch (ins.op) {
      case Op::kRef: case Op::kNot:
        add = at(ins.node);
        break;
      case Op::kDynamicRef:
        add = at(ins.node);
        if (ins.dynamic_anchor.empty()) break;
        for (const ResourceAnchors& r : program.resources) {
          add = std::max(add, at(r.Find(ins.dynamic_anchor)));
        }
        break;
      case Op::kAllOf: case Op::kAnyOf: case Op::kOneOf:
        for (const Node* t : ins.nodes) add = SaturatingAdd(add, at(t));
        break;
      case Op::kIf:
        add = SaturatingAdd(at(ins.node),
                            std::max(at(ins.node2), at(ins.node3)));
        break;
      case Op::kDependentSchemas:
        for (const auto& p : ins.props) add = SaturatingAdd(add, at(p.node));
        break;
      default:
        break;
    }
    total = SaturatingAdd(total, add);
  }
  return total;
}

}  // namespace

// A cycle of in-place applicators ($ref, allOf, ...) never moves into the
// instance, so evaluating it would never end: refuse it now rather than
// find it as a stack overflow later.
absl::Status Compiler::CheckCycles() {
  const auto& nodes = program_->nodes;
  // Iterative DFS: 0 unvisited, 1 on the stack, 2 done.
  std::vector<uint8_t> state(nodes.size(), 0);
  for (const auto& start : nodes) {
    if (state[start->id]) continue;
    std::vector<std::pair<const Node*, std::vector<Edge>>> stack;
    stack.emplace_back(start.get(), InPlaceEdges(*program_, *start));
    state[start->id] = 1;
    while (!stack.empty()) {
      auto& [node, pending] = stack.back();
      if (pending.empty()) {
        state[node->id] = 2;
        stack.pop_back();
        continue;
      }
      const Edge e = pending.back();
      pending.pop_back();
      if (state[e.to->id] == 1) {
        return Refuse(*e.via,
                      absl::StrCat("reference cycle through ",
                                   e.to->pointer.empty() ? "(root)"
                                                         : e.to->pointer,
                                   " never advances into the instance "
                                   "(infinite recursion)"));
      }
      if (state[e.to->id] == 0) {
        state[e.to->id] = 1;
        stack.emplace_back(e.to, InPlaceEdges(*program_, *e.to));
      }
    }
  }
  return absl::OkStatus();
}

// Nested anyOf/allOf over shared $refs double the work at every level, so
// a few hundred bytes of schema can ask for 2^40 evaluations of a one-byte
// instance. On the optimized, acyclic graph (what the evaluator runs),
// bound bottom-up what evaluating each node can cost at one instance
// location, and refuse a schema over max_fanout (schema_too_complex)
// rather than spend the evaluation budget on every call.
absl::Status Compiler::CheckFanout() {
  const auto& nodes = program_->nodes;
  std::vector<uint8_t> done(nodes.size(), 0);
  std::vector<uint64_t> bound(nodes.size(), 0);
  for (const auto& start : nodes) {
    if (done[start->id]) continue;
    // Post-order without recursion: a node is finished once every
    // in-place child is (no cycles remain, see CheckCycles).
    std::vector<std::pair<const Node*, std::vector<Edge>>> stack;
    stack.emplace_back(start.get(), InPlaceEdges(*program_, *start));
    while (!stack.empty()) {
      auto& [node, pending] = stack.back();
      if (pending.empty()) {
        absl::Status s = RecordBound(*node, &bound);
        if (!s.ok()) return s;
        done[node->id] = 1;
        stack.pop_back();
        continue;
      }
      const Node* next = pending.back().to;
      pending.pop_back();
      if (!done[next->id]) {
        stack.emplace_back(next, InPlaceEdges(*program_, *next));
      }
    }
  }
  return absl::OkStatus();
}

// Records the bound of `node`, whose in-place subschemas all have theirs,
// and refuses the smallest subschema over the limit: the one whose own
// combinators multiply the work.
absl::Status Compiler::RecordBound(const Node& node,
                                   std::vector<uint64_t>* bound) {
  const uint64_t b = InPlaceBound(*program_, node, *bound);
  (*bound)[node.id] = b;
  if (b <= options_.max_fanout) return absl::OkStatus();
  return Refuse(node.pointer,
                absl::StrCat("schema_too_complex: one instance location may "
                             "need more than ",
                             options_.max_fanout,
                             " subschema evaluations here (nested allOf, "
                             "anyOf, oneOf, not, if or $ref over shared "
                             "subschemas multiply; limit max_fanout)"));
}

// Cheap rewrites on the finished, cycle-checked graph.
void Compiler::Optimize() {
  const bool chase = !program_->uses_dynamic_scope;
  auto fix = [chase](const Node*& n) {
    if (n && chase) n = Chase(n);
  };
  for (auto& node : program_->nodes) {
    for (Instr& ins : node->instrs) {
      if (ins.op != Op::kRef) fix(ins.node);
      fix(ins.node2);
      fix(ins.node3);
      for (const Node*& n : ins.nodes) fix(n);
      for (NamedChild& p : ins.props) fix(p.node);
      for (PatternChild& p : ins.patterns) fix(p.node);
      if (ins.op == Op::kRef) fix(ins.node);
      if (ins.op != Op::kMembers) continue;
      for (uint32_t i = 0; i < ins.props.size(); ++i) {
        ins.props[i].cheap = Discriminator(*ins.props[i].node);
        if (ins.props[i].cheap) ins.cheap_props.push_back(i);
      }
    }
  }
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
