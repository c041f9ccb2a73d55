// Evaluator keywords on object members: required, dependentRequired,
// properties/patternProperties/additionalProperties, propertyNames,
// dependentSchemas.
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/schema/internal/evaluator_impl.h"

namespace toolgate {
namespace schema {
namespace internal {

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
    steps_ += ins.names.size() / kLookupsPerStep;
    for (const std::string& name : ins.names) {
      if (!require(name, nullptr) && Stop()) break;
    }
    return ok;
  }
  steps_ += ins.dependent.size() / kLookupsPerStep;
  for (const auto& [prop, names] : ins.dependent) {
    if (!obj.count(prop)) continue;
    steps_ += names.size() / kLookupsPerStep;
    for (const std::string& name : names) {
      if (!require(name, &prop) && Stop()) return false;
    }
  }
  return ok;
}

bool Evaluator::Members(const Instr& ins, const Json& v, Ann* a) {
  const auto& obj = v.get_ref<const Json::object_t&>();
  const bool prechecked = !sink_ && !ins.cheap_props.empty();
  if (prechecked && !CheapMembers(ins, obj)) return false;
  const size_t m = ins.props.size();
  if (!a && ins.patterns.empty() && !ins.flag) {
    // Only "properties": look each one up unless the instance is smaller.
    if (m <= obj.size() || m < 8) return MembersByLookup(ins, obj, prechecked);
  }
  return MembersByMerge(ins, obj, prechecked, a);
}

// Fast mode: scalar-only property subschemas first, so a failing
// discriminator (e.g. "version": {"const": 2} in a oneOf branch) rejects
// before any heavy sibling is walked.
bool Evaluator::CheapMembers(const Instr& ins, const Json::object_t& obj) {
  for (uint32_t i : ins.cheap_props) {
    auto it = obj.find(ins.props[i].name);
    if (it != obj.end() && !Eval(*ins.props[i].node, it->second, nullptr)) {
      return false;
    }
  }
  return true;
}

bool Evaluator::MembersByLookup(const Instr& ins, const Json::object_t& obj,
                                bool prechecked) {
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

bool Evaluator::MembersByMerge(const Instr& ins, const Json::object_t& obj,
                               bool prechecked, Ann* a) {
  auto prop = ins.props.begin();
  const auto props_end = ins.props.end();
  bool ok = true;
  size_t index = 0;
  // Every member is matched against every pattern.
  steps_ += obj.size() * ins.patterns.size() * kStepsPerMatch;
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
      if (!Additional(ins, key, it->second)) {
        ok = false;
        if (Stop()) return false;
      }
    }
    if (matched && a) Ann::Mark(&a->props, index, obj.size());
  }
  return ok;
}

// additionalProperties for a member no other keyword matched.
bool Evaluator::Additional(const Instr& ins, const std::string& key,
                           const Json& value) {
  if (!ins.node->is_false) return Child(*ins.node, value, &key, 0);
  if (sink_) {
    Report(ins, value,
           absl::StrCat("property ", Quote(key), " is not allowed; ",
                        "expected ", ins.expected),
           &key);
  }
  return false;
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

bool Evaluator::DependentSchemas(const Instr& ins, const Json& v, Ann* a) {
  steps_ += ins.props.size() / kLookupsPerStep;
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

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
