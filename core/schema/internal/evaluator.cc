#include "core/schema/internal/evaluator.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/schema/internal/format.h"
#include "core/schema/internal/json_value.h"

namespace toolgate {
namespace schema {
namespace internal {
namespace {

// Bounds recursion whatever the schema graph; instances are at most 256
// deep and in-place reference cycles are refused at compile time.
constexpr int kMaxDepth = 1024;

uint8_t KindOf(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: return kNull;
    case Json::value_t::boolean: return kBoolean;
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float: return kNumber;
    case Json::value_t::string: return kString;
    case Json::value_t::array: return kArray;
    case Json::value_t::object: return kObject;
    default: return 0;
  }
}

// What in-place subschemas evaluated, for unevaluated*. Indexes are member
// positions in the (ordered) object, or array indexes.
struct Ann {
  bool all_props = false;
  bool all_items = false;
  size_t prefix = 0;
  std::vector<bool> props;
  std::vector<bool> items;

  static void Mark(std::vector<bool>* bits, size_t i, size_t n) {
    if (bits->size() < n) bits->resize(n);
    (*bits)[i] = true;
  }
  bool Prop(size_t i) const {
    return all_props || (i < props.size() && props[i]);
  }
  bool Item(size_t i) const {
    return all_items || i < prefix || (i < items.size() && items[i]);
  }
  static void Or(std::vector<bool>* to, const std::vector<bool>& from) {
    if (to->size() < from.size()) to->resize(from.size());
    for (size_t i = 0; i < from.size(); ++i) {
      if (from[i]) (*to)[i] = true;
    }
  }
  void Merge(const Ann& o) {
    all_props |= o.all_props;
    all_items |= o.all_items;
    prefix = std::max(prefix, o.prefix);
    Or(&props, o.props);
    Or(&items, o.items);
  }
};

struct PathToken {
  const std::string* key;  // Null for an array index.
  size_t index;
};

std::string Quote(const std::string& s) { return absl::StrCat("\"", s, "\""); }

class Evaluator {
 public:
  Evaluator(const Program& p, Sink* sink)
      : p_(p), sink_(sink), root_sink_(sink) {}

  bool Top(const Json& v) {
    const bool ok = Eval(*p_.root, v, nullptr) && !aborted_;
    if (!ok && root_sink_ && root_sink_->added == 0) {
      Add(root_sink_, "", "", "", "a valid instance", v,
          "instance is invalid");
    }
    return ok;
  }

 private:
  bool Eval(const Node& n, const Json& v, Ann* parent);
  bool Run(const Instr& ins, const Json& v, uint8_t kind, Ann* a);
  bool Numeric(const Instr& ins, const Json& v);
  bool Strings(const Instr& ins, const Json& v);
  bool Counts(const Instr& ins, const Json& v);
  bool Required(const Instr& ins, const Json& v);
  bool Items(const Instr& ins, const Json& v, Ann* a);
  bool Contains(const Instr& ins, const Json& v, Ann* a);
  bool Members(const Instr& ins, const Json& v, Ann* a);
  bool PropertyNames(const Instr& ins, const Json& v);
  bool AnyOneOf(const Instr& ins, const Json& v, Ann* a);
  bool If(const Instr& ins, const Json& v, Ann* a);
  bool Unevaluated(const Instr& ins, const Json& v, Ann* a);
  bool DynamicRef(const Instr& ins, const Json& v, Ann* a);

  // Evaluates a child instance location.
  bool Child(const Node& n, const Json& v, const std::string* key,
             size_t index) {
    if (sink_) path_.push_back(PathToken{key, index});
    const bool ok = Eval(n, v, nullptr);
    if (sink_) path_.pop_back();
    return ok;
  }
  // Evaluates with violations off (branches whose failure is not final).
  bool Quiet(const Node& n, const Json& v, Ann* a) {
    Sink* saved = sink_;
    sink_ = nullptr;
    const bool ok = Eval(n, v, a);
    sink_ = saved;
    return ok;
  }
  bool Stop() const { return !sink_ || sink_->added >= sink_->max; }

  std::string Pointer(const std::string* extra_key = nullptr,
                      size_t extra_index = ~size_t{0}) const;
  void Add(Sink* sink, std::string pointer, const std::string& schema_pointer,
           const std::string& keyword, const std::string& expected,
           const Json& v, std::string message);
  void Report(const Instr& ins, const Json& v, std::string message,
              const std::string* key = nullptr, size_t index = ~size_t{0},
              const std::string* expected = nullptr) {
    if (Stop()) return;
    Add(sink_, Pointer(key, index), ins.schema_pointer, ins.keyword,
        expected ? *expected : ins.expected, v, std::move(message));
  }
  bool Abort(const Json& v, const char* what);
  std::string Closest(const Instr& ins, const Json& v);

  const Program& p_;
  Sink* sink_;
  Sink* const root_sink_;
  std::vector<PathToken> path_;
  uint64_t steps_ = 0;
  int depth_ = 0;
  bool aborted_ = false;
  bool detail_ = true;
  std::vector<SchemaViolation> pending_detail_;
  int scope_size_ = 0;
  int scope_[kMaxDepth];
};

std::string Evaluator::Pointer(const std::string* extra_key,
                               size_t extra_index) const {
  std::string out;
  auto append = [&out](const std::string* key, size_t index) {
    if (key) {
      absl::StrAppend(&out, "/", EscapePointerToken(*key));
    } else {
      absl::StrAppend(&out, "/", index);
    }
  };
  for (const PathToken& t : path_) append(t.key, t.index);
  if (extra_key || extra_index != ~size_t{0}) append(extra_key, extra_index);
  return out;
}

void Evaluator::Add(Sink* sink, std::string pointer,
                    const std::string& schema_pointer,
                    const std::string& keyword, const std::string& expected,
                    const Json& v, std::string message) {
  SchemaViolation out;
  out.instance_pointer = std::move(pointer);
  out.schema_pointer = schema_pointer;
  out.keyword = keyword;
  out.expected = expected;
  out.received = TruncatedJson(v);
  out.message = std::move(message);
  sink->out->push_back(std::move(out));
  ++sink->added;
}

bool Evaluator::Abort(const Json& v, const char* what) {
  if (!aborted_ && root_sink_) {
    Add(root_sink_, sink_ ? Pointer() : "", "", "evaluation_limit",
        "a schema that validates within toolgate's limits", v,
        absl::StrCat("validation stopped: ", what,
                     "; the instance is not accepted"));
  }
  aborted_ = true;
  return false;
}

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
  if (ok && parent) parent->Merge(local);
  return ok && !aborted_;
}

bool Evaluator::Run(const Instr& ins, const Json& v, uint8_t kind, Ann* a) {
  switch (ins.op) {
    case Op::kFalse:
      if (sink_) Report(ins, v, "no value is allowed here (the schema is false)");
      return false;
    case Op::kType: {
      const bool ok = (ins.type_mask & kind) ||
                      (kind == kNumber && (ins.type_mask & kIntegerType) &&
                       IsIntegral(v));
      if (!ok) {
        if (sink_) Report(ins, v, absl::StrCat("expected ", ins.expected, ", got ",
                                    JsonTypeName(v)));
      }
      return ok;
    }
    case Op::kConst:
      if (JsonEqual(v, ins.values[0])) return true;
      if (sink_) Report(ins, v, absl::StrCat("value must be ", TruncatedJson(ins.values[0])));
      return false;
    case Op::kEnum: {
      bool ok = false;
      if (kind == kString) {
        ok = ins.string_values.contains(v.get_ref<const std::string&>());
      } else {
        for (const Json& e : ins.values) {
          if (JsonEqual(v, e)) {
            ok = true;
            break;
          }
        }
      }
      if (!ok) if (sink_) Report(ins, v, absl::StrCat("value is not one of the allowed values (", ins.expected, ")"));
      return ok;
    }
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
    case Op::kDependentSchemas: {
      bool ok = true;
      for (const NamedChild& d : ins.props) {
        if (!v.contains(d.name)) continue;
        if (!Eval(*d.node, v, a)) {
          ok = false;
          if (Stop()) break;
        }
      }
      return ok;
    }
    case Op::kRef: return Eval(*ins.node, v, a);
    case Op::kDynamicRef: return DynamicRef(ins, v, a);
    case Op::kAllOf: {
      bool ok = true;
      for (const Node* n : ins.nodes) {
        if (!Eval(*n, v, a)) {
          ok = false;
          if (Stop()) break;
        }
      }
      return ok;
    }
    case Op::kAnyOf: case Op::kOneOf: return AnyOneOf(ins, v, a);
    case Op::kNot:
      if (!Quiet(*ins.node, v, nullptr)) return !aborted_;
      if (sink_) Report(ins, v, absl::StrCat("value must not match the schema at ",
                                  ins.node->pointer));
      return false;
    case Op::kIf: return If(ins, v, a);
    case Op::kUnevaluatedItems: case Op::kUnevaluatedProperties:
      return Unevaluated(ins, v, a);
  }
  return false;
}

bool Evaluator::Numeric(const Instr& ins, const Json& v) {
  bool ok;
  const char* what;
  if (ins.op == Op::kMultipleOf) {
    ok = IsMultipleOf(ToDecimal(v), ins.decimal);
    what = "is not";
  } else {
    const int c = CompareNumber(v, ins.number);
    switch (ins.op) {
      case Op::kMinimum: ok = c >= 0; what = "is less than the minimum"; break;
      case Op::kMaximum: ok = c <= 0; what = "is greater than the maximum"; break;
      case Op::kExclusiveMinimum: ok = c > 0; what = "must be"; break;
      default: ok = c < 0; what = "must be"; break;
    }
    if (!ok && (ins.op == Op::kMinimum || ins.op == Op::kMaximum)) {
      if (sink_) Report(ins, v, absl::StrCat(TruncatedJson(v), " ", what, " ",
                                  NumberText(ins.number)));
      return false;
    }
  }
  if (!ok) {
    if (sink_) Report(ins, v, absl::StrCat(TruncatedJson(v), " ", what, " ", ins.expected));
  }
  return ok;
}

bool Evaluator::Strings(const Instr& ins, const Json& v) {
  const std::string& s = v.get_ref<const std::string&>();
  switch (ins.op) {
    case Op::kPattern:
      if (RE2::PartialMatch(s, *ins.patterns[0].re)) return true;
      if (sink_) Report(ins, v, absl::StrCat("string does not match /",
                                  ins.patterns[0].source, "/"));
      return false;
    case Op::kFormat:
      if (CheckFormat(static_cast<Format>(ins.format), s)) return true;
      if (sink_) Report(ins, v, absl::StrCat("string is not a valid ",
                                  ins.expected.substr(7)));
      return false;
    default: {
      const size_t n = CodePointLength(s);
      const bool ok = ins.op == Op::kMinLength ? n >= ins.count : n <= ins.count;
      if (!ok) {
        if (sink_) Report(ins, v, absl::StrCat("string has ", n, " characters; expected ",
                                    ins.expected));
      }
      return ok;
    }
  }
}

bool Evaluator::Counts(const Instr& ins, const Json& v) {
  const size_t n = v.size();
  bool ok;
  switch (ins.op) {
    case Op::kUniqueItems: {
      size_t i, j;
      if (!FindDuplicate(v, &i, &j)) return true;
      if (sink_) Report(ins, v, absl::StrCat("items ", i, " and ", j, " are equal"));
      return false;
    }
    case Op::kMinItems: case Op::kMinProperties: ok = n >= ins.count; break;
    default: ok = n <= ins.count; break;
  }
  if (!ok) {
    const bool items = ins.op == Op::kMinItems || ins.op == Op::kMaxItems;
    if (sink_) Report(ins, v, absl::StrCat(items ? "array has " : "object has ", n,
                                items ? " items" : " properties",
                                "; expected ", ins.expected));
  }
  return ok;
}

bool Evaluator::Required(const Instr& ins, const Json& v) {
  const auto& obj = v.get_ref<const Json::object_t&>();
  bool ok = true;
  auto require = [&](const std::string& name, const std::string* because) {
    if (obj.count(name)) return true;
    ok = false;
    if (!Stop()) {
      const std::string expected =
          absl::StrCat("required property ", Quote(name));
      if (sink_) Report(ins, v,
             because ? absl::StrCat("missing property ", Quote(name),
                                    " (required when ", Quote(*because),
                                    " is present)")
                     : absl::StrCat("missing required property ", Quote(name)),
             nullptr, ~size_t{0}, &expected);
    }
    return !Stop();
  };
  if (ins.op == Op::kRequired) {
    for (const std::string& name : ins.names) {
      if (!require(name, nullptr) && Stop()) break;
    }
    return ok;
  }
  for (const auto& [prop, names] : ins.dependent) {
    if (!obj.count(prop)) continue;
    for (const std::string& name : names) {
      if (!require(name, &prop) && Stop()) return false;
    }
  }
  return ok;
}

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
    if (sink_) Report(ins, v, absl::StrCat("array has ", arr.size(),
                                " items; expected ", ins.expected),
           nullptr, prefix);
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
  if (sink_) Report(ins, v, absl::StrCat(matched, " item(s) match; expected ",
                              ins.expected));
  return false;
}

bool Evaluator::Members(const Instr& ins, const Json& v, Ann* a) {
  const auto& obj = v.get_ref<const Json::object_t&>();
  // Fast mode: scalar-only property subschemas first, so a failing
  // discriminator (e.g. "version": {"const": 2} in a oneOf branch) rejects
  // before any heavy sibling is walked.
  const bool prechecked = !sink_ && !ins.cheap_props.empty();
  if (prechecked) {
    for (uint32_t i : ins.cheap_props) {
      auto it = obj.find(ins.props[i].name);
      if (it != obj.end() && !Eval(*ins.props[i].node, it->second, nullptr)) {
        return false;
      }
    }
  }
  const size_t m = ins.props.size();
  if (!a && ins.patterns.empty() && !ins.flag) {
    // Only "properties": look each one up unless the instance is smaller.
    if (m <= obj.size() || m < 8) {
      bool ok = true;
      for (const NamedChild& p : ins.props) {
        if (prechecked && p.cheap) continue;
        auto it = obj.find(p.name);
        if (it == obj.end()) continue;
        if (!Child(*p.node, it->second, &it->first, 0)) {
          ok = false;
          if (Stop()) return false;
        }
      }
      return ok;
    }
  }
  auto prop = ins.props.begin();
  const auto props_end = ins.props.end();
  bool ok = true;
  size_t index = 0;
  for (auto it = obj.begin(); it != obj.end(); ++it, ++index) {
    const std::string& key = it->first;
    bool matched = false;
    // Both sides are sorted: search forward from the last match.
    prop = std::lower_bound(prop, props_end, key,
                            [](const NamedChild& p, const std::string& k) {
                              return p.name < k;
                            });
    if (prop != props_end && prop->name == key) {
      matched = true;
      if (!(prechecked && prop->cheap) &&
          !Child(*prop->node, it->second, &key, 0)) {
        ok = false;
        if (Stop()) return false;
      }
    }
    for (const PatternChild& pc : ins.patterns) {
      if (!RE2::PartialMatch(key, *pc.re)) continue;
      matched = true;
      if (!Child(*pc.node, it->second, &key, 0)) {
        ok = false;
        if (Stop()) return false;
      }
    }
    if (!matched && ins.flag) {
      matched = true;
      if (ins.node->is_false) {
        ok = false;
        if (sink_) Report(ins, it->second,
               absl::StrCat("property ", Quote(key), " is not allowed; ",
                            "expected ", ins.expected),
               &key);
        if (Stop()) return false;
      } else if (!Child(*ins.node, it->second, &key, 0)) {
        ok = false;
        if (Stop()) return false;
      }
    }
    if (matched && a) Ann::Mark(&a->props, index, obj.size());
  }
  return ok;
}

bool Evaluator::PropertyNames(const Instr& ins, const Json& v) {
  bool ok = true;
  for (const auto& [key, value] : v.get_ref<const Json::object_t&>()) {
    const Json name(key);
    if (!Child(*ins.node, name, &key, 0)) {
      ok = false;
      if (Stop()) return false;
    }
  }
  return ok;
}

std::string Evaluator::Closest(const Instr& ins, const Json& v) {
  // Re-run each alternative collecting its violations, once, without
  // nested detail (bounded work), and keep the one with fewest.
  if (!detail_ || !sink_) return "";
  detail_ = false;
  Sink* saved = sink_;
  std::vector<SchemaViolation> best;
  size_t best_index = 0;
  for (size_t i = 0; i < ins.nodes.size() && !aborted_; ++i) {
    std::vector<SchemaViolation> got;
    Sink tmp{&got, 8, 0};
    sink_ = &tmp;
    Eval(*ins.nodes[i], v, nullptr);
    if (!got.empty() && (best.empty() || got.size() < best.size())) {
      best = std::move(got);
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
  if (passed > 1) {
    std::string list;
    for (size_t i : which) absl::StrAppend(&list, list.empty() ? "#" : ", #", i);
    if (sink_) Report(ins, v, absl::StrCat("value matches ", passed, " alternatives (",
                                list, "); exactly one is allowed"));
    return false;
  }
  const std::string closest = Closest(ins, v);
  if (sink_) Report(ins, v, absl::StrCat("value matches none of the ", ins.nodes.size(),
                              " alternatives", closest));
  for (SchemaViolation& d : pending_detail_) {
    if (Stop()) break;
    sink_->out->push_back(std::move(d));
    ++sink_->added;
  }
  pending_detail_.clear();
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

bool Evaluator::Unevaluated(const Instr& ins, const Json& v, Ann* a) {
  const bool items = ins.op == Op::kUnevaluatedItems;
  const size_t n = v.size();
  bool ok = true;
  size_t i = 0;
  auto visit = [&](const Json& child, const std::string* key) {
    if (items ? a->Item(i) : a->Prop(i)) return true;
    if (ins.node->is_false) {
      if (sink_) Report(ins, child,
             key ? absl::StrCat("property ", Quote(*key),
                                " is not allowed (not evaluated by any "
                                "subschema)")
                 : absl::StrCat("item ", i, " is not allowed (not evaluated "
                                "by any subschema)"),
             key, i);
      return false;
    }
    return Child(*ins.node, child, key, i);
  };
  if (items) {
    for (const Json& child : v.get_ref<const Json::array_t&>()) {
      if (!visit(child, nullptr)) {
        ok = false;
        if (Stop()) return false;
      }
      ++i;
    }
  } else {
    for (const auto& [key, child] : v.get_ref<const Json::object_t&>()) {
      if (!visit(child, &key)) {
        ok = false;
        if (Stop()) return false;
      }
      ++i;
    }
  }
  if (ok) {
    (items ? a->all_items : a->all_props) = true;
  }
  (void)n;
  return ok;
}

}  // namespace

bool Evaluate(const Program& program, const Json& instance, Sink* sink) {
  Evaluator e(program, sink);
  return e.Top(instance);
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
