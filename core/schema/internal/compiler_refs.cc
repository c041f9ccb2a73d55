// Compiling $ref and $dynamicRef, and the per-resource $dynamicAnchor
// tables the evaluator searches along the dynamic scope.
#include <string>

#include "absl/strings/str_cat.h"
#include "core/schema/internal/compiler_impl.h"
#include "core/schema/internal/uri.h"

namespace toolgate {
namespace schema {
namespace internal {

absl::Status Compiler::Refs(const Ctx& c) {
  if (c.schema->contains("$ref")) {
    absl::Status s = Ref(c, "$ref");
    if (!s.ok()) return s;
  }
  if (c.resource->dialect == Dialect::kDraft2020_12 &&
      c.schema->contains("$dynamicRef")) {
    return Ref(c, "$dynamicRef");
  }
  return absl::OkStatus();
}

absl::Status Compiler::Ref(const Ctx& c, absl::string_view kw) {
  const Json& r = (*c.schema)[std::string(kw)];
  const std::string where = Join(c.where, kw);
  if (!r.is_string()) return Refuse(where, "must be a string");
  const std::string ref = r.get<std::string>();
  const std::string uri = ResolveUri(c.resource->uri, ref);
  auto loc = registry_.Resolve(uri, c.resource->dialect, where);
  if (!loc.ok()) return loc.status();
  auto target = NodeFor(*loc);
  if (!target.ok()) return target.status();
  const bool dynamic = kw == "$dynamicRef";
  Instr& ins = Add(c, dynamic ? Op::kDynamicRef : Op::kRef, kw, kAnyKind);
  ins.node = *target;
  if (!dynamic) return absl::OkStatus();
  // Dynamic only when the static target itself declares the anchor
  // ($dynamicRef's "bookend" rule); otherwise it behaves as $ref.
  std::string absolute, fragment;
  SplitFragment(uri, &absolute, &fragment);
  const std::string name = PercentDecode(fragment);
  if (name.empty() || name[0] == '/') return absl::OkStatus();
  const Resource& tr = registry_.resource(registry_.ResourceOf(*loc));
  auto it = tr.dynamic_anchors.find(name);
  if (it != tr.dynamic_anchors.end() && it->second == loc->pointer) {
    ins.dynamic_anchor = name;
    program_->uses_dynamic_scope = true;
  }
  return absl::OkStatus();
}

void Compiler::BuildDynamicTables() {
  program_->resources.resize(registry_.resource_count());
  if (!program_->uses_dynamic_scope) return;
  for (int r = 0; r < registry_.resource_count(); ++r) {
    for (const auto& [name, ptr] : registry_.resource(r).dynamic_anchors) {
      auto it = by_location_.find(
          absl::StrCat(registry_.resource(r).root.doc, ":", ptr));
      if (it != by_location_.end()) {
        program_->resources[r].dynamic.push_back({name, it->second});
      }
    }
  }
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
