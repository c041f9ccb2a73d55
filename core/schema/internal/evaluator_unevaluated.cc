// Evaluator unevaluatedItems/unevaluatedProperties: they run last in their
// node and read the annotations (Ann) that its in-place subschemas left.
#include <string>

#include "absl/strings/str_cat.h"
#include "core/schema/internal/evaluator_impl.h"

namespace toolgate {
namespace schema {
namespace internal {

bool Evaluator::Unevaluated(const Instr& ins, const Json& v, Ann* a) {
  const bool items = ins.op == Op::kUnevaluatedItems;
  steps_ += v.size() / kBytesPerStep;
  bool ok = true;
  size_t i = 0;
  if (items) {
    for (const Json& child : v.get_ref<const Json::array_t&>()) {
      if (!a->Item(i) && !UnevaluatedChild(ins, child, nullptr, i)) {
        ok = false;
        if (Stop()) return false;
      }
      ++i;
    }
  } else {
    for (const auto& [key, child] : v.get_ref<const Json::object_t&>()) {
      if (!a->Prop(i) && !UnevaluatedChild(ins, child, &key, i)) {
        ok = false;
        if (Stop()) return false;
      }
      ++i;
    }
  }
  if (ok) {
    (items ? a->all_items : a->all_props) = true;
  }
  return ok;
}

// An item (key null) or member no in-place subschema evaluated.
bool Evaluator::UnevaluatedChild(const Instr& ins, const Json& child,
                                 const std::string* key, size_t i) {
  if (!ins.node->is_false) return Child(*ins.node, child, key, i);
  if (sink_) {
    Report(ins, child,
           key ? absl::StrCat("property ", Quote(*key),
                              " is not allowed (not evaluated by any "
                              "subschema)")
               : absl::StrCat("item ", i, " is not allowed (not evaluated "
                              "by any subschema)"),
           key, i);
  }
  return false;
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
