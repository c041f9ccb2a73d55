// Evaluator in-place applicators (allOf, anyOf, oneOf, not, if/then/else,
// $dynamicRef): they re-apply subschemas to the same value and merge what
// those evaluated for unevaluated*.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/schema/internal/evaluator_impl.h"

namespace toolgate {
namespace schema {
namespace internal {

bool Evaluator::AllOf(const Instr& ins, const Json& v, Ann* a) {
  bool ok = true;
  for (const Node* n : ins.nodes) {
    if (!Eval(*n, v, a)) {
      ok = false;
      if (Stop()) break;
    }
  }
  return ok;
}

bool Evaluator::AnyOneOf(const Instr& ins, const Json& v, Ann* a) {
  const bool one = ins.op == Op::kOneOf;
  size_t passed = 0;
  std::vector<size_t> which;
  Ann chosen;
  for (size_t i = 0; i < ins.nodes.size(); ++i) {
    Ann tmp;
    if (!Quiet(*ins.nodes[i], v, a ? &tmp : nullptr)) {
      if (aborted_) return false;
      continue;
    }
    ++passed;
    if (sink_ && one) which.push_back(i);
    if (a) {
      if (one) {
        chosen = std::move(tmp);
      } else {
        a->Merge(tmp);
      }
    } else if (!one || (passed > 1 && !sink_)) {
      break;
    }
  }
  if (one ? passed == 1 : passed > 0) {
    if (a && one) a->Merge(chosen);
    return true;
  }
  if (Stop()) return false;
  return ReportAlternatives(ins, v, passed, which);
}

// An anyOf/oneOf failure: several alternatives matched a oneOf (`which`),
// or none did, reported with the violations of the closest one.
bool Evaluator::ReportAlternatives(const Instr& ins, const Json& v,
                                   size_t passed,
                                   const std::vector<size_t>& which) {
  if (passed > 1) {
    std::string list;
    for (size_t i : which) absl::StrAppend(&list, list.empty() ? "#" : ", #", i);
    if (sink_) {
      Report(ins, v, absl::StrCat("value matches ", passed, " alternatives (",
                                  list, "); exactly one is allowed"));
    }
    return false;
  }
  const std::string closest = Closest(ins, v);
  if (sink_) {
    Report(ins, v, absl::StrCat("value matches none of the ", ins.nodes.size(),
                                " alternatives", closest));
  }
  for (SchemaViolation& d : pending_detail_) {
    if (Stop()) break;
    sink_->out->push_back(std::move(d));
    ++sink_->added;
  }
  pending_detail_.clear();
  return false;
}

// Whether `got` refuses the value at `here` for its kind (type, enum,
// const, false) rather than for a detail of a value of the right kind.
bool RefusesKind(const std::vector<SchemaViolation>& got,
                 const std::string& here) {
  for (const SchemaViolation& d : got) {
    if (d.instance_pointer == here &&
        (d.keyword == "type" || d.keyword == "enum" || d.keyword == "const" ||
         d.keyword == "false")) {
      return true;
    }
  }
  return false;
}

std::string Evaluator::Closest(const Instr& ins, const Json& v) {
  // Re-run each alternative collecting its violations, once, without
  // nested detail (bounded work), and keep the one with fewest; between
  // as few, the one that takes the value's kind ("type": [] is an array
  // with too few items, not a misspelt type name).
  if (!detail_ || !sink_) return "";
  detail_ = false;
  Sink* saved = sink_;
  const std::string here = Pointer();
  std::vector<SchemaViolation> best;
  bool best_refuses_kind = false;
  size_t best_index = 0;
  for (size_t i = 0; i < ins.nodes.size() && !aborted_; ++i) {
    std::vector<SchemaViolation> got;
    Sink tmp{&got, 8, 0};
    sink_ = &tmp;
    Eval(*ins.nodes[i], v, nullptr);
    if (got.empty()) continue;
    const bool refuses_kind = RefusesKind(got, here);
    if (best.empty() || got.size() < best.size() ||
        (got.size() == best.size() && best_refuses_kind && !refuses_kind)) {
      best = std::move(got);
      best_refuses_kind = refuses_kind;
      best_index = i;
    }
  }
  sink_ = saved;
  detail_ = true;
  if (best.empty()) return "";
  std::string summary = absl::StrCat("; closest alternative #", best_index,
                                     ": ", best[0].message);
  pending_detail_ = std::move(best);
  return summary;
}

bool Evaluator::Not(const Instr& ins, const Json& v) {
  if (!Quiet(*ins.node, v, nullptr)) return !aborted_;
  if (sink_) {
    Report(ins, v, absl::StrCat("value must not match the schema at ",
                                ins.node->pointer));
  }
  return false;
}

bool Evaluator::If(const Instr& ins, const Json& v, Ann* a) {
  Ann tmp;
  const bool cond = Quiet(*ins.node, v, a ? &tmp : nullptr);
  if (aborted_) return false;
  if (cond && a) a->Merge(tmp);
  const Node* branch = cond ? ins.node2 : ins.node3;
  return branch == nullptr || Eval(*branch, v, a);
}

bool Evaluator::DynamicRef(const Instr& ins, const Json& v, Ann* a) {
  const Node* target = ins.node;
  if (!ins.dynamic_anchor.empty()) {
    steps_ += scope_size_ / kLookupsPerStep;
    // The outermost resource in the dynamic scope that declares the anchor.
    for (int i = 0; i < scope_size_; ++i) {
      if (const Node* t = p_.resources[scope_[i]].Find(ins.dynamic_anchor)) {
        target = t;
        break;
      }
    }
  }
  return Eval(*target, v, a);
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
