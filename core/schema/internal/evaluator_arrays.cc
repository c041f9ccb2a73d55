// Evaluator keywords on array items: prefixItems/items (and draft-07's
// items/additionalItems) in one pass, and contains with min/maxContains.
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/schema/internal/evaluator_impl.h"

namespace toolgate {
namespace schema {
namespace internal {

bool Evaluator::Items(const Instr& ins, const Json& v, Ann* a) {
  const auto& arr = v.get_ref<const Json::array_t&>();
  const size_t prefix = std::min(arr.size(), ins.nodes.size());
  bool ok = true;
  for (size_t i = 0; i < prefix; ++i) {
    if (!Child(*ins.nodes[i], arr[i], nullptr, i)) {
      ok = false;
      if (Stop()) return false;
    }
  }
  if (a) a->prefix = std::max(a->prefix, prefix);
  if (!ins.node || arr.size() <= prefix) return ok;
  if (ins.node->is_false) {
    if (sink_) {
      Report(ins, v, absl::StrCat("array has ", arr.size(),
                                  " items; expected ", ins.expected),
             nullptr, prefix);
    }
    return false;
  }
  for (size_t i = prefix; i < arr.size(); ++i) {
    if (!Child(*ins.node, arr[i], nullptr, i)) {
      ok = false;
      if (Stop()) return false;
    }
  }
  if (a && ok) a->all_items = true;
  return ok;
}

bool Evaluator::Contains(const Instr& ins, const Json& v, Ann* a) {
  const auto& arr = v.get_ref<const Json::array_t&>();
  uint64_t matched = 0;
  for (size_t i = 0; i < arr.size(); ++i) {
    if (!Quiet(*ins.node, arr[i], nullptr)) {
      if (aborted_) return false;
      continue;
    }
    ++matched;
    if (a) {
      Ann::Mark(&a->items, i, arr.size());
    } else if (matched >= ins.count && ins.count2 == ~0ull) {
      break;
    } else if (matched > ins.count2) {
      break;
    }
  }
  if (matched >= ins.count && matched <= ins.count2) return true;
  if (sink_) {
    Report(ins, v, absl::StrCat(matched, " item(s) match; expected ",
                                ins.expected));
  }
  return false;
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
