#include "core/schema/internal/compiler.h"

#include <algorithm>
#include <deque>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/schema/internal/format.h"
#include "core/schema/internal/json_value.h"
#include "core/schema/internal/regex.h"
#include "core/schema/internal/registry.h"
#include "core/schema/internal/uri.h"

namespace toolgate {
namespace schema {
namespace internal {
namespace {

absl::Status Refuse(absl::string_view where, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("schema refused at ", where.empty() ? "(root)" : where,
                   ": ", why));
}

std::string Join(const std::string& ptr, absl::string_view token) {
  return absl::StrCat(ptr, "/", EscapePointerToken(token));
}

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

std::string ValueText(const Json& v) {
  return v.is_string() ? v.get<std::string>() : TruncatedJson(v, 40);
}

std::string EnumText(const Json& values) {
  std::string out = "enum: ";
  size_t shown = 0;
  for (const Json& v : values) {
    if (shown > 0) out += " | ";
    if (out.size() > 200) {
      absl::StrAppend(&out, "... (", values.size() - shown, " more)");
      break;
    }
    out += ValueText(v);
    ++shown;
  }
  return out;
}

struct TypeName {
  absl::string_view name;
  uint8_t bit;
};
constexpr TypeName kTypes[] = {
    {"null", kNull},     {"boolean", kBoolean}, {"integer", kIntegerType},
    {"number", kNumber}, {"string", kString},   {"array", kArray},
    {"object", kObject},
};

class Compiler {
 public:
  Compiler(const CompileOptions& options, Program* program)
      : options_(options), registry_(options), program_(program) {}

  absl::Status Run(const Json& schema);

 private:
  // Where a keyword of the node being compiled lives, and its context.
  // Copied out of the registry, which may grow (and move) while a $ref
  // loads another document.
  struct ResInfo {
    std::string uri;
    Dialect dialect;
    uint32_t vocab;
  };
  struct Ctx {
    Node* node;
    Location loc;
    std::string where;  // Registry::Where(loc).
    const ResInfo* resource;
    const Json* schema;
  };

  absl::StatusOr<const Node*> NodeFor(const Location& loc);
  absl::StatusOr<const Node*> Sub(const Ctx& c, absl::string_view kw);
  absl::StatusOr<const Node*> SubAt(const Ctx& c, const std::string& ptr);
  absl::Status Drain();
  absl::Status CompileNode(Node* node, const Location& loc);
  absl::Status Keywords(const Ctx& c);
  absl::Status Scalars(const Ctx& c);
  absl::Status Strings(const Ctx& c);
  absl::Status Arrays(const Ctx& c);
  absl::Status Objects(const Ctx& c);
  absl::Status Dependencies(const Ctx& c);
  absl::Status Combinators(const Ctx& c);
  absl::Status Refs(const Ctx& c);
  absl::Status Unevaluated(const Ctx& c);
  absl::Status Type(const Ctx& c, const Json& v);
  absl::Status Members(const Ctx& c);
  absl::Status Items(const Ctx& c);
  absl::Status Contains(const Ctx& c);
  absl::Status Ref(const Ctx& c, absl::string_view kw);
  absl::Status CheckCycles();
  void BuildDynamicTables();
  void Optimize();

  Instr& Add(const Ctx& c, Op op, absl::string_view kw, uint8_t applies);
  bool Has(const Ctx& c, absl::string_view kw, uint32_t vocab) const;
  absl::StatusOr<uint64_t> Count(const Ctx& c, absl::string_view kw) const;
  absl::StatusOr<JsonNumber> Number(const Ctx& c, absl::string_view kw) const;

  const CompileOptions& options_;
  Registry registry_;
  Program* program_;
  absl::flat_hash_map<std::string, Node*> by_location_;
  std::deque<std::pair<Node*, Location>> pending_;
};

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
  return absl::OkStatus();
}

namespace {

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

}  // namespace

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

absl::Status Compiler::Drain() {
  while (!pending_.empty()) {
    auto [node, loc] = pending_.front();
    pending_.pop_front();
    absl::Status s = CompileNode(node, loc);
    if (!s.ok()) return s;
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
  absl::Status st = Keywords(c);
  if (!st.ok()) return st;
  std::stable_sort(node->instrs.begin(), node->instrs.end(),
                   [](const Instr& a, const Instr& b) {
                     return Priority(a.op) < Priority(b.op);
                   });
  return absl::OkStatus();
}

absl::Status Compiler::Keywords(const Ctx& c) {
  if (c.resource->dialect == Dialect::kDraft7 && c.schema->contains("$ref")) {
    return Ref(c, "$ref");  // draft-07: $ref overrides its siblings.
  }
  for (auto step : {&Compiler::Scalars, &Compiler::Strings, &Compiler::Arrays,
                    &Compiler::Objects, &Compiler::Dependencies,
                    &Compiler::Combinators, &Compiler::Refs,
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

absl::Status Compiler::Type(const Ctx& c, const Json& v) {
  uint8_t mask = 0;
  std::vector<std::string> names;
  const Json list = v.is_array() ? v : Json::array({v});
  for (const Json& t : list) {
    bool known = false;
    for (const TypeName& tn : kTypes) {
      if (t.is_string() && t.get_ref<const std::string&>() == tn.name) {
        mask |= tn.bit;
        names.emplace_back(tn.name);
        known = true;
      }
    }
    if (!known) {
      return Refuse(Join(c.where, "type"),
                    absl::StrCat("unknown type ", TruncatedJson(t, 40)));
    }
  }
  Instr& ins = Add(c, Op::kType, "type", kAnyKind);
  ins.type_mask = mask;
  ins.expected = absl::StrJoin(names, " or ");
  return absl::OkStatus();
}

absl::Status Compiler::Scalars(const Ctx& c) {
  const Json& s = *c.schema;
  if (Has(c, "type", kVocabValidation)) {
    absl::Status st = Type(c, s["type"]);
    if (!st.ok()) return st;
  }
  if (Has(c, "const", kVocabValidation)) {
    Instr& ins = Add(c, Op::kConst, "const", kAnyKind);
    ins.values.push_back(s["const"]);
    ins.expected = absl::StrCat("const: ", TruncatedJson(s["const"]));
  }
  if (Has(c, "enum", kVocabValidation)) {
    const Json& e = s["enum"];
    if (!e.is_array()) return Refuse(Join(c.where, "enum"), "must be an array");
    Instr& ins = Add(c, Op::kEnum, "enum", kAnyKind);
    for (const Json& v : e) {
      if (v.is_string()) {
        ins.string_values.insert(v.get<std::string>());
      } else {
        ins.enum_has_non_strings = true;
        ins.values.push_back(v);
      }
    }
    ins.expected = EnumText(e);
  }
  struct Limit {
    absl::string_view kw;
    Op op;
    absl::string_view text;
  };
  for (const Limit& l : {Limit{"minimum", Op::kMinimum, "at least "},
                         Limit{"maximum", Op::kMaximum, "at most "},
                         Limit{"exclusiveMinimum", Op::kExclusiveMinimum,
                               "greater than "},
                         Limit{"exclusiveMaximum", Op::kExclusiveMaximum,
                               "less than "}}) {
    if (!Has(c, l.kw, kVocabValidation)) continue;
    auto n = Number(c, l.kw);
    if (!n.ok()) return n.status();
    Instr& ins = Add(c, l.op, l.kw, kNumber);
    ins.number = *n;
    ins.expected = absl::StrCat(l.text, NumberText(*n));
  }
  if (Has(c, "multipleOf", kVocabValidation)) {
    auto n = Number(c, "multipleOf");
    if (!n.ok()) return n.status();
    if (n->value <= 0) {
      return Refuse(Join(c.where, "multipleOf"), "must be greater than 0");
    }
    Instr& ins = Add(c, Op::kMultipleOf, "multipleOf", kNumber);
    ins.number = *n;
    ins.decimal = ToDecimal(s["multipleOf"]);
    ins.expected = absl::StrCat("a multiple of ", NumberText(*n));
  }
  return absl::OkStatus();
}

absl::Status Compiler::Strings(const Ctx& c) {
  const Json& s = *c.schema;
  for (auto [kw, op, text] :
       {std::make_tuple("minLength", Op::kMinLength, "at least "),
        std::make_tuple("maxLength", Op::kMaxLength, "at most ")}) {
    if (!Has(c, kw, kVocabValidation)) continue;
    auto n = Count(c, kw);
    if (!n.ok()) return n.status();
    Instr& ins = Add(c, op, kw, kString);
    ins.count = *n;
    ins.expected = absl::StrCat(text, *n, *n == 1 ? " character" : " characters");
  }
  if (Has(c, "pattern", kVocabValidation)) {
    const std::string where = Join(c.where, "pattern");
    if (!s["pattern"].is_string()) return Refuse(where, "must be a string");
    auto re = CompileEcmaRegex(s["pattern"].get<std::string>(), where);
    if (!re.ok()) return re.status();
    Instr& ins = Add(c, Op::kPattern, "pattern", kString);
    ins.patterns.push_back(PatternChild{*std::move(re),
                                        s["pattern"].get<std::string>(), where,
                                        nullptr});
    ins.expected = absl::StrCat("a string matching /",
                                s["pattern"].get<std::string>(), "/");
  }
  const bool format_vocab =
      c.resource->vocab & (kVocabFormatAnnotation | kVocabFormatAssertion);
  if (s.contains("format") && format_vocab && options_.format_assertion) {
    if (!s["format"].is_string()) {
      return Refuse(Join(c.where, "format"), "must be a string");
    }
    const Format f = FormatFromName(s["format"].get<std::string>());
    if (f != Format::kUnknown) {
      Instr& ins = Add(c, Op::kFormat, "format", kString);
      ins.format = static_cast<int>(f);
      ins.expected = absl::StrCat("format ", s["format"].get<std::string>());
    }
  }
  return absl::OkStatus();
}

absl::Status Compiler::Arrays(const Ctx& c) {
  const Json& s = *c.schema;
  for (auto [kw, op, text] :
       {std::make_tuple("minItems", Op::kMinItems, "at least "),
        std::make_tuple("maxItems", Op::kMaxItems, "at most ")}) {
    if (!Has(c, kw, kVocabValidation)) continue;
    auto n = Count(c, kw);
    if (!n.ok()) return n.status();
    Instr& ins = Add(c, op, kw, kArray);
    ins.count = *n;
    ins.expected = absl::StrCat(text, *n, *n == 1 ? " item" : " items");
  }
  if (Has(c, "uniqueItems", kVocabValidation)) {
    if (!s["uniqueItems"].is_boolean()) {
      return Refuse(Join(c.where, "uniqueItems"), "must be a boolean");
    }
    if (s["uniqueItems"].get<bool>()) {
      Add(c, Op::kUniqueItems, "uniqueItems", kArray).expected =
          "unique items";
    }
  }
  absl::Status st = Items(c);
  if (!st.ok()) return st;
  return Contains(c);
}

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

absl::Status Compiler::Members(const Ctx& c) {
  const Json& s = *c.schema;
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
    if (!s[std::string(kw)].is_object()) {
      return Refuse(Join(c.where, kw), "must be an object of schemas");
    }
    for (const auto& [name, sub] : s[std::string(kw)].items()) {
      const std::string ptr = Join(Join(c.loc.pointer, kw), name);
      auto n = SubAt(c, ptr);
      if (!n.ok()) return n.status();
      if (kw == "properties") {
        ins.props.push_back({name, *n});
        allowed.push_back(absl::StrCat("\"", name, "\""));
        continue;
      }
      const std::string where = Join(Join(c.where, kw), name);
      auto re = CompileEcmaRegex(name, where);
      if (!re.ok()) return re.status();
      ins.patterns.push_back(PatternChild{*std::move(re), name, where, *n});
      allowed.push_back(absl::StrCat("/", name, "/"));
    }
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

absl::Status Compiler::Objects(const Ctx& c) {
  const Json& s = *c.schema;
  for (auto [kw, op, text] :
       {std::make_tuple("minProperties", Op::kMinProperties, "at least "),
        std::make_tuple("maxProperties", Op::kMaxProperties, "at most ")}) {
    if (!Has(c, kw, kVocabValidation)) continue;
    auto n = Count(c, kw);
    if (!n.ok()) return n.status();
    Instr& ins = Add(c, op, kw, kObject);
    ins.count = *n;
    ins.expected =
        absl::StrCat(text, *n, *n == 1 ? " property" : " properties");
  }
  if (Has(c, "required", kVocabValidation)) {
    const Json& r = s["required"];
    if (!r.is_array()) {
      return Refuse(Join(c.where, "required"), "must be an array of strings");
    }
    Instr& ins = Add(c, Op::kRequired, "required", kObject);
    for (const Json& name : r) {
      if (!name.is_string()) {
        return Refuse(Join(c.where, "required"), "must be an array of strings");
      }
      ins.names.push_back(name.get<std::string>());
    }
  }
  if (Has(c, "propertyNames", kVocabApplicator)) {
    auto n = Sub(c, "propertyNames");
    if (!n.ok()) return n.status();
    Add(c, Op::kPropertyNames, "propertyNames", kObject).node = *n;
  }
  return Members(c);
}

absl::Status Compiler::Dependencies(const Ctx& c) {
  const Json& s = *c.schema;
  const bool draft7 = c.resource->dialect == Dialect::kDraft7;
  struct Source {
    absl::string_view kw;
    bool names, schemas;
    uint32_t vocab;
  };
  const std::vector<Source> sources =
      draft7 ? std::vector<Source>{{"dependencies", true, true, 0}}
             : std::vector<Source>{
                   {"dependentRequired", true, false, kVocabValidation},
                   {"dependentSchemas", false, true, kVocabApplicator}};
  for (const Source& src : sources) {
    if (!Has(c, src.kw, src.vocab ? src.vocab : kVocabAll)) continue;
    const Json& d = s[std::string(src.kw)];
    const std::string where = Join(c.where, src.kw);
    if (!d.is_object()) return Refuse(where, "must be an object");
    // Indexes, not pointers: Add() grows the instruction vector.
    int names = -1, schemas = -1;
    auto& instrs = c.node->instrs;
    for (const auto& [prop, dep] : d.items()) {
      if (dep.is_array() && src.names) {
        if (names < 0) {
          Add(c, Op::kDependentRequired, src.kw, kObject);
          names = static_cast<int>(instrs.size()) - 1;
        }
        std::vector<std::string> list;
        for (const Json& n : dep) {
          if (!n.is_string()) {
            return Refuse(Join(where, prop), "must be an array of strings");
          }
          list.push_back(n.get<std::string>());
        }
        instrs[names].dependent.emplace_back(prop, std::move(list));
      } else if ((dep.is_object() || dep.is_boolean()) && src.schemas) {
        auto n = SubAt(c, Join(Join(c.loc.pointer, src.kw), prop));
        if (!n.ok()) return n.status();
        if (schemas < 0) {
          Add(c, Op::kDependentSchemas, src.kw, kObject);
          schemas = static_cast<int>(instrs.size()) - 1;
        }
        instrs[schemas].props.push_back({prop, *n});
      } else {
        return Refuse(Join(where, prop), "malformed dependency");
      }
    }
  }
  return absl::OkStatus();
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
  if (Has(c, "not", kVocabApplicator)) {
    auto n = Sub(c, "not");
    if (!n.ok()) return n.status();
    Instr& ins = Add(c, Op::kNot, "not", kAnyKind);
    ins.node = *n;
    ins.expected = absl::StrCat("a value not matching ", (*n)->pointer);
  }
  if (Has(c, "if", kVocabApplicator)) {
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

// A cycle of in-place applicators ($ref, allOf, ...) never moves into the
// instance, so evaluating it would never end: refuse it now rather than
// find it as a stack overflow later.
absl::Status Compiler::CheckCycles() {
  const auto& nodes = program_->nodes;
  struct Edge {
    const Node* to;
    const std::string* via;
  };
  auto edges_of = [&](const Node& n) {
    std::vector<Edge> out;
    for (const Instr& ins : n.instrs) {
      switch (ins.op) {
        case Op::kRef: case Op::kNot:
          out.push_back({ins.node, &ins.schema_pointer});
          break;
        case Op::kDynamicRef:
          out.push_back({ins.node, &ins.schema_pointer});
          if (ins.dynamic_anchor.empty()) break;
          for (const ResourceAnchors& r : program_->resources) {
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
  };
  // Iterative DFS: 0 unvisited, 1 on the stack, 2 done.
  std::vector<uint8_t> state(nodes.size(), 0);
  for (const auto& start : nodes) {
    if (state[start->id]) continue;
    std::vector<std::pair<const Node*, std::vector<Edge>>> stack;
    stack.emplace_back(start.get(), edges_of(*start));
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
                      absl::StrCat("reference cycle through ", e.to->pointer.empty() ? "(root)" : e.to->pointer,
                                   " never advances into the instance "
                                   "(infinite recursion)"));
      }
      if (state[e.to->id] == 0) {
        state[e.to->id] = 1;
        stack.emplace_back(e.to, edges_of(*e.to));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Program>> CompileProgram(
    const Json& schema, const CompileOptions& options) {
  auto program = std::make_unique<Program>();
  Compiler compiler(options, program.get());
  absl::Status s = compiler.Run(schema);
  if (!s.ok()) return s;
  return program;
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
