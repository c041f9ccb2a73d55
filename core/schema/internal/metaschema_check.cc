#include "core/schema/internal/metaschema_check.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/schema/internal/compiler.h"
#include "core/schema/internal/evaluator.h"
#include "core/schema/internal/refuse.h"

namespace toolgate {
namespace schema {
namespace internal {
namespace {

struct Builtin {
  absl::string_view name;  // For messages: "draft 2020-12".
  std::unique_ptr<Program> program;
  absl::Status status;  // Why `program` is null.
};

Builtin CompileBuiltin(absl::string_view name, const char* uri) {
  Builtin out;
  out.name = name;
  // Never itself checked against a metaschema: that would recurse into
  // the static being initialized.
  auto program = CompileProgram(Json{{"$ref", uri}}, CompileOptions(),
                                MetaschemaCheck::kOff);
  if (!program.ok()) {
    out.status = absl::InternalError(absl::StrCat(
        "built-in ", name,
        " metaschema does not compile: ", program.status().message()));
    return out;
  }
  out.program = *std::move(program);
  // No step budget: the document is bounded by max_schema_nodes and
  // max_schema_depth, and the metaschemas do a bounded amount of work per
  // value (no oneOf, anyOf stops at the first match), so the cost is
  // linear in the document (bench/README.md, "Compile time").
  out.program->max_steps = std::numeric_limits<uint64_t>::max();
  return out;
}

// Compiled on first use, once per process; immutable afterwards.
const Builtin& BuiltinFor(Dialect dialect) {
  if (dialect == Dialect::kDraft7) {
    static const Builtin* const kDraft7 = new Builtin(
        CompileBuiltin("draft-07", "http://json-schema.org/draft-07/schema#"));
    return *kDraft7;
  }
  static const Builtin* const kDraft2020 = new Builtin(CompileBuiltin(
      "draft 2020-12", "https://json-schema.org/draft/2020-12/schema"));
  return *kDraft2020;
}

struct DialectRoot {
  std::string pointer;
  Dialect dialect;
};

bool Inside(const std::string& ptr, const std::string& ancestor) {
  return ptr.size() > ancestor.size() && ptr[ancestor.size()] == '/' &&
         absl::string_view(ptr).substr(0, ancestor.size()) == ancestor;
}

// Document `doc`'s root and each resource in it that declares "$schema" of
// another dialect than the part around it. One of the same dialect is left
// to the enclosing check (the same built-in metaschema), which spares
// copying the document for it (krakend's schema has 78 of them).
std::vector<DialectRoot> DialectRoots(const Registry& registry, int doc) {
  std::vector<DialectRoot> roots;
  // Resources are registered in document order: enclosing ones first.
  for (int i = 0; i < registry.resource_count(); ++i) {
    const Resource& r = registry.resource(i);
    if (r.root.doc != doc) continue;
    if (roots.empty()) {
      if (r.root.pointer.empty()) roots.push_back({"", r.dialect});
      continue;
    }
    if (!r.declares_schema || r.root.pointer.empty()) continue;
    const DialectRoot* around = &roots.front();
    for (const DialectRoot& root : roots) {
      if (Inside(r.root.pointer, root.pointer) &&
          root.pointer.size() > around->pointer.size()) {
        around = &root;
      }
    }
    if (around->dialect != r.dialect) {
      roots.push_back({r.root.pointer, r.dialect});
    }
  }
  return roots;
}

// The part of the document `root` answers for: its value, with the
// resources inside it that declare their own dialect replaced by `true`
// (each is checked on its own).
Json Part(const Json& value, const DialectRoot& root,
          const std::vector<DialectRoot>& roots) {
  Json part = value;
  for (const DialectRoot& other : roots) {
    if (!Inside(other.pointer, root.pointer)) continue;
    const Json::json_pointer at(other.pointer.substr(root.pointer.size()));
    // An enclosing resource already replaced takes this one with it.
    if (part.contains(at)) part[at] = true;
  }
  return part;
}

absl::Status Explain(const Builtin& meta, const std::string& where,
                     const Json& value) {
  std::vector<SchemaViolation> violations;
  Sink sink;
  sink.out = &violations;
  Evaluate(*meta.program, value, &sink);
  if (violations.empty()) {
    return Refuse(where, absl::StrCat("not a valid ", meta.name,
                                      " schema (its metaschema refuses it)"));
  }
  const SchemaViolation& v = violations.front();
  if (v.keyword == "evaluation_limit") {
    // Only a document nested far deeper than the default max_schema_depth
    // gets here (the evaluator's depth bound, not the step budget).
    return Refuse(absl::StrCat(where, v.instance_pointer),
                  absl::StrCat("nested too deeply to check against the ",
                               meta.name, " metaschema"));
  }
  return Refuse(absl::StrCat(where, v.instance_pointer),
                absl::StrCat("not a valid ", meta.name, " schema: ", v.message,
                             " (the metaschema requires ", v.expected, " at ",
                             v.schema_pointer, ")"));
}

absl::Status CheckDocument(const Registry& registry, int doc) {
  const std::vector<DialectRoot> roots = DialectRoots(registry, doc);
  for (const DialectRoot& root : roots) {
    const Builtin& meta = BuiltinFor(root.dialect);
    if (!meta.status.ok()) return meta.status;  // Fail closed.
    auto value = registry.At(Location{doc, root.pointer});
    if (!value.ok()) return value.status();
    const bool nested = std::any_of(
        roots.begin(), roots.end(),
        [&](const DialectRoot& r) { return Inside(r.pointer, root.pointer); });
    const Json part = nested ? Part(**value, root, roots) : Json();
    const Json& checked = nested ? part : **value;
    if (!Evaluate(*meta.program, checked, nullptr)) {
      return Explain(meta, registry.Where(Location{doc, root.pointer}),
                     checked);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckAgainstMetaschemas(const Registry& registry) {
  for (int doc = 0; doc < registry.doc_count(); ++doc) {
    if (registry.doc_is_builtin(doc)) continue;  // Trusted, and large.
    absl::Status s = CheckDocument(registry, doc);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
