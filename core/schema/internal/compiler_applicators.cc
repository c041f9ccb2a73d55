// Compiling the applicator keywords, which compile subschemas: items,
// contains, properties and friends, dependencies, allOf/anyOf/oneOf, not,
// if/then/else, unevaluated*.
#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/schema/internal/compiler_impl.h"
#include "core/schema/internal/regex.h"

namespace toolgate {
namespace schema {
namespace internal {

absl::Status Compiler::Items(const Ctx& c) {
  const Json& s = *c.schema;
  const bool draft7 = c.resource->dialect == Dialect::kDraft7;
  const char* prefix_kw = draft7 ? "items" : "prefixItems";
  const bool has_prefix = Has(c, prefix_kw, kVocabApplicator) &&
                          (!draft7 || s[prefix_kw].is_array());
  const char* rest_kw = draft7 && has_prefix ? "additionalItems" : "items";
  const bool has_rest = Has(c, rest_kw, kVocabApplicator);
  if (!has_prefix && !has_rest) return absl::OkStatus();
  Instr& ins = Add(c, Op::kItems, has_rest ? rest_kw : prefix_kw, kArray);
  if (has_prefix) {
    const Json& arr = s[prefix_kw];
    if (!arr.is_array()) {
      return Refuse(Join(c.where, prefix_kw), "must be an array of schemas");
    }
    for (size_t i = 0; i < arr.size(); ++i) {
      auto n = SubAt(c, absl::StrCat(Join(c.loc.pointer, prefix_kw), "/", i));
      if (!n.ok()) return n.status();
      ins.nodes.push_back(*n);
    }
  }
  if (has_rest) {
    if (s[rest_kw].is_array()) {
      return Refuse(Join(c.where, rest_kw),
                    "must be a schema (in draft 2020-12 use prefixItems for "
                    "tuples)");
    }
    auto n = Sub(c, rest_kw);
    if (!n.ok()) return n.status();
    ins.node = *n;
    ins.expected = absl::StrCat("at most ", ins.nodes.size(), " items");
  }
  return absl::OkStatus();
}

absl::Status Compiler::Contains(const Ctx& c) {
  if (!Has(c, "contains", kVocabApplicator)) return absl::OkStatus();
  auto n = Sub(c, "contains");
  if (!n.ok()) return n.status();
  uint64_t min = 1, max = ~0ull;
  if (c.resource->dialect == Dialect::kDraft2020_12) {
    if (Has(c, "minContains", kVocabValidation)) {
      auto m = Count(c, "minContains");
      if (!m.ok()) return m.status();
      min = *m;
    }
    if (Has(c, "maxContains", kVocabValidation)) {
      auto m = Count(c, "maxContains");
      if (!m.ok()) return m.status();
      max = *m;
    }
  }
  Instr& ins = Add(c, Op::kContains, "contains", kArray);
  ins.node = *n;
  ins.count = min;
  ins.count2 = max;
  ins.expected =
      max == ~0ull
          ? absl::StrCat("at least ", min, " item(s) matching ", (*n)->pointer)
          : absl::StrCat("between ", min, " and ", max, " items matching ",
                         (*n)->pointer);
  return absl::OkStatus();
}

absl::Status Compiler::PropertyNames(const Ctx& c) {
  if (!Has(c, "propertyNames", kVocabApplicator)) return absl::OkStatus();
  auto n = Sub(c, "propertyNames");
  if (!n.ok()) return n.status();
  Add(c, Op::kPropertyNames, "propertyNames", kObject).node = *n;
  return absl::OkStatus();
}

// properties, patternProperties and additionalProperties as one kMembers.
absl::Status Compiler::Members(const Ctx& c) {
  const bool has_props = Has(c, "properties", kVocabApplicator);
  const bool has_patterns = Has(c, "patternProperties", kVocabApplicator);
  const bool has_additional = Has(c, "additionalProperties", kVocabApplicator);
  if (!has_props && !has_patterns && !has_additional) return absl::OkStatus();
  Instr& ins = Add(c, Op::kMembers,
                   has_additional ? "additionalProperties" : "properties",
                   kObject);
  std::vector<std::string> allowed;
  for (absl::string_view kw : {"properties", "patternProperties"}) {
    if (!Has(c, kw, kVocabApplicator)) continue;
    absl::Status st = MemberSchemas(c, kw, &ins, &allowed);
    if (!st.ok()) return st;
  }
  // nlohmann objects iterate in key order; the evaluator merge-joins.
  std::sort(ins.props.begin(), ins.props.end(),
            [](const NamedChild& a, const NamedChild& b) {
              return a.name < b.name;
            });
  if (has_additional) {
    auto n = Sub(c, "additionalProperties");
    if (!n.ok()) return n.status();
    ins.node = *n;
    ins.flag = true;
    ins.additional_pointer = Join(c.where, "additionalProperties");
  }
  std::string list = absl::StrJoin(allowed, ", ");
  if (list.size() > 200) list = list.substr(0, 200) + "...";
  ins.expected = allowed.empty()
                     ? "no properties"
                     : absl::StrCat("only the properties ", list);
  return absl::OkStatus();
}

// The subschemas of properties or patternProperties (`kw`) into `ins`.
absl::Status Compiler::MemberSchemas(const Ctx& c, absl::string_view kw,
                                     Instr* ins,
                                     std::vector<std::string>* allowed) {
  const Json& s = *c.schema;
  if (!s[std::string(kw)].is_object()) {
    return Refuse(Join(c.where, kw), "must be an object of schemas");
  }
  for (const auto& [name, sub] : s[std::string(kw)].items()) {
    const std::string ptr = Join(Join(c.loc.pointer, kw), name);
    auto n = SubAt(c, ptr);
    if (!n.ok()) return n.status();
    if (kw == "properties") {
      ins->props.push_back({name, *n});
      allowed->push_back(absl::StrCat("\"", name, "\""));
      continue;
    }
    const std::string where = Join(Join(c.where, kw), name);
    auto re = Regex(name, where);
    if (!re.ok()) return re.status();
    ins->patterns.push_back(PatternChild{*std::move(re), name, where, *n});
    allowed->push_back(absl::StrCat("/", name, "/"));
  }
  return absl::OkStatus();
}

// draft-07 dependencies, or 2020-12 dependentRequired and dependentSchemas.
absl::Status Compiler::Dependencies(const Ctx& c) {
  const Json& s = *c.schema;
  const bool draft7 = c.resource->dialect == Dialect::kDraft7;
  const std::vector<DependencyKeyword> sources =
      draft7 ? std::vector<DependencyKeyword>{{"dependencies", true, true, 0}}
             : std::vector<DependencyKeyword>{
                   {"dependentRequired", true, false, kVocabValidation},
                   {"dependentSchemas", false, true, kVocabApplicator}};
  for (const DependencyKeyword& src : sources) {
    if (!Has(c, src.kw, src.vocab ? src.vocab : kVocabAll)) continue;
    const Json& d = s[std::string(src.kw)];
    if (!d.is_object()) return Refuse(Join(c.where, src.kw), "must be an object");
    // Indexes, not pointers: Add() grows the instruction vector.
    int names = -1, schemas = -1;
    for (const auto& [prop, dep] : d.items()) {
      absl::Status st = Dependency(c, src, prop, dep, &names, &schemas);
      if (!st.ok()) return st;
    }
  }
  return absl::OkStatus();
}

// One entry of a dependency keyword; *names and *schemas index the
// instructions collecting property lists and schemas (-1: none yet).
absl::Status Compiler::Dependency(const Ctx& c, const DependencyKeyword& src,
                                  const std::string& prop, const Json& dep,
                                  int* names, int* schemas) {
  auto& instrs = c.node->instrs;
  const std::string where = Join(Join(c.where, src.kw), prop);
  if (dep.is_array() && src.names) {
    if (*names < 0) {
      Add(c, Op::kDependentRequired, src.kw, kObject);
      *names = static_cast<int>(instrs.size()) - 1;
    }
    std::vector<std::string> list;
    for (const Json& n : dep) {
      if (!n.is_string()) return Refuse(where, "must be an array of strings");
      list.push_back(n.get<std::string>());
    }
    instrs[*names].dependent.emplace_back(prop, std::move(list));
    return absl::OkStatus();
  }
  if ((dep.is_object() || dep.is_boolean()) && src.schemas) {
    auto n = SubAt(c, Join(Join(c.loc.pointer, src.kw), prop));
    if (!n.ok()) return n.status();
    if (*schemas < 0) {
      Add(c, Op::kDependentSchemas, src.kw, kObject);
      *schemas = static_cast<int>(instrs.size()) - 1;
    }
    instrs[*schemas].props.push_back({prop, *n});
    return absl::OkStatus();
  }
  return Refuse(where, "malformed dependency");
}

absl::Status Compiler::Combinators(const Ctx& c) {
  const Json& s = *c.schema;
  for (auto [kw, op] : {std::make_pair("allOf", Op::kAllOf),
                        std::make_pair("anyOf", Op::kAnyOf),
                        std::make_pair("oneOf", Op::kOneOf)}) {
    if (!Has(c, kw, kVocabApplicator)) continue;
    const Json& arr = s[kw];
    if (!arr.is_array() || arr.empty()) {
      return Refuse(Join(c.where, kw), "must be a non-empty array of schemas");
    }
    Instr& ins = Add(c, op, kw, kAnyKind);
    for (size_t i = 0; i < arr.size(); ++i) {
      auto n = SubAt(c, absl::StrCat(Join(c.loc.pointer, kw), "/", i));
      if (!n.ok()) return n.status();
      ins.nodes.push_back(*n);
    }
    ins.expected = op == Op::kOneOf
                       ? absl::StrCat("exactly one of ", arr.size(),
                                      " alternatives (oneOf)")
                       : absl::StrCat("at least one of ", arr.size(),
                                      " alternatives (anyOf)");
  }
  return absl::OkStatus();
}

// not, and if/then/else.
absl::Status Compiler::Conditionals(const Ctx& c) {
  if (Has(c, "not", kVocabApplicator)) {
    auto n = Sub(c, "not");
    if (!n.ok()) return n.status();
    Instr& ins = Add(c, Op::kNot, "not", kAnyKind);
    ins.node = *n;
    ins.expected = absl::StrCat("a value not matching ", (*n)->pointer);
  }
  if (!Has(c, "if", kVocabApplicator)) return absl::OkStatus();
  auto n = Sub(c, "if");
  if (!n.ok()) return n.status();
  Instr& ins = Add(c, Op::kIf, "if", kAnyKind);
  ins.node = *n;
  for (auto [kw, slot] : {std::make_pair("then", &ins.node2),
                          std::make_pair("else", &ins.node3)}) {
    if (!Has(c, kw, kVocabApplicator)) continue;
    auto branch = Sub(c, kw);
    if (!branch.ok()) return branch.status();
    *slot = *branch;
  }
  return absl::OkStatus();
}

absl::Status Compiler::Unevaluated(const Ctx& c) {
  if (c.resource->dialect != Dialect::kDraft2020_12) return absl::OkStatus();
  for (auto [kw, op, applies] :
       {std::make_tuple("unevaluatedItems", Op::kUnevaluatedItems, kArray),
        std::make_tuple("unevaluatedProperties", Op::kUnevaluatedProperties,
                        kObject)}) {
    if (!Has(c, kw, kVocabUnevaluated)) continue;
    auto n = Sub(c, kw);
    if (!n.ok()) return n.status();
    Instr& ins = Add(c, op, kw, static_cast<uint8_t>(applies));
    ins.node = *n;
    ins.expected = op == Op::kUnevaluatedItems ? "no unevaluated items"
                                               : "no unevaluated properties";
    c.node->has_unevaluated = true;
  }
  return absl::OkStatus();
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
