#include "core/manifest/manifest_policy.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"

namespace toolgate {
namespace manifest_internal {
namespace {

std::optional<SideEffect> SideEffectFromName(absl::string_view name) {
  for (SideEffect e :
       {SideEffect::kRead, SideEffect::kWrite, SideEffect::kDestructive}) {
    if (SideEffectName(e) == name) return e;
  }
  return std::nullopt;
}

absl::Status ReadCoerce(FieldReader& p, const Json& coerce,
                        ArgumentPolicy* out) {
  for (const auto& [pointer, kind] : coerce.items()) {
    const std::string at =
        absl::StrCat("/coerce/", EscapePointerToken(pointer));
    if (auto s = CheckArgumentPointer(p, at, pointer); !s.ok()) return s;
    if (kind == "integer_from_string") {
      out->coerce.emplace(pointer, Coercion::kIntegerFromString);
    } else if (kind == "boolean_from_string") {
      out->coerce.emplace(pointer, Coercion::kBooleanFromString);
    } else {
      return p.Fail(
          at, "must be \"integer_from_string\" or \"boolean_from_string\"");
    }
  }
  return absl::OkStatus();
}

absl::Status ReadBind(FieldReader& p, const Json& bind, ArgumentPolicy* out) {
  for (const auto& [pointer, key] : bind.items()) {
    const std::string at = absl::StrCat("/bind/", EscapePointerToken(pointer));
    if (auto s = CheckArgumentPointer(p, at, pointer); !s.ok()) return s;
    if (!key.is_string() || key.get_ref<const std::string&>().empty()) {
      return p.Fail(at, "must name a run context key (a non-empty string)");
    }
    out->bind.emplace(pointer, key.get<std::string>());
  }
  return absl::OkStatus();
}

}  // namespace

// A JSON Pointer into the arguments: "/" tokens with only ~0 and ~1
// escapes; "*" matches every item or member. The whole arguments ("") is
// no field.
absl::Status CheckArgumentPointer(const FieldReader& r,
                                  const std::string& sub_pointer,
                                  absl::string_view pointer) {
  if (pointer.empty() || pointer[0] != '/') {
    return r.Fail(sub_pointer,
                  "must be a JSON Pointer to an argument, starting with \"/\"");
  }
  for (size_t i = 0; i < pointer.size(); ++i) {
    if (pointer[i] == '~' &&
        (i + 1 == pointer.size() ||
         (pointer[i + 1] != '0' && pointer[i + 1] != '1'))) {
      return r.Fail(sub_pointer, "\"~\" in a JSON Pointer must be ~0 or ~1");
    }
  }
  return absl::OkStatus();
}

absl::Status ReadToolPolicy(const Json& policy, const std::string& tool_pointer,
                            const RunSettings& settings, ToolSpec* spec) {
  const auto& classes = settings.require_approval_for;
  spec->policy.requires_approval =
      std::find(classes.begin(), classes.end(), spec->side_effect) !=
      classes.end();
  FieldReader p(policy, tool_pointer + "/policy", spec->name);
  ToolPolicy& out = spec->policy;
  if (auto s =
          p.OnlyKeys({"format_assertion", "requires_approval", "coerce", "bind",
                      "arguments", "max_calls_per_run", "parallel"});
      !s.ok()) {
    return s;
  }
  if (auto s = p.Bool("format_assertion", &out.format_assertion); !s.ok())
    return s;
  if (auto s = p.Bool("requires_approval", &out.requires_approval); !s.ok())
    return s;
  if (auto s = p.Bool("parallel", &out.parallel); !s.ok()) return s;
  if (auto s = p.Int("max_calls_per_run", 1, 1000000, &out.max_calls_per_run);
      !s.ok()) {
    return s;
  }
  auto arguments = std::make_shared<ArgumentPolicy>();
  const Json* coerce = nullptr;
  if (auto s = p.Object("coerce", false, &coerce); !s.ok()) return s;
  if (coerce != nullptr) {
    if (auto s = ReadCoerce(p, *coerce, arguments.get()); !s.ok()) return s;
  }
  const Json* bind = nullptr;
  if (auto s = p.Object("bind", false, &bind); !s.ok()) return s;
  if (bind != nullptr) {
    if (auto s = ReadBind(p, *bind, arguments.get()); !s.ok()) return s;
  }
  const Json* rules = nullptr;
  if (auto s = p.Object("arguments", false, &rules); !s.ok()) return s;
  if (rules != nullptr) {
    if (auto s = ReadArgumentRules(p, *rules, tool_pointer + "/policy",
                                   spec->name, arguments.get());
        !s.ok()) {
      return s;
    }
  }
  if (!arguments->coerce.empty() || !arguments->bind.empty() ||
      !arguments->rules.empty()) {
    out.arguments = std::move(arguments);
  }
  return absl::OkStatus();
}

absl::Status ReadPolicySettings(FieldReader& r, RunSettings* out) {
  const Json* classes = nullptr;
  if (auto s = r.Array("require_approval_for", false, &classes); !s.ok())
    return s;
  for (size_t i = 0; classes != nullptr && i < classes->size(); ++i) {
    const Json& name = (*classes)[i];
    auto effect = name.is_string() ? SideEffectFromName(name.get<std::string>())
                                   : std::nullopt;
    if (!effect.has_value()) {
      return r.Fail(absl::StrCat("/require_approval_for/", i),
                    "must be \"read\", \"write\" or \"destructive\"");
    }
    out->require_approval_for.push_back(*effect);
  }
  auto& list = out->require_approval_for;
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
  const Json* budgets = nullptr;
  if (auto s = r.Object("max_calls_per_run_by_class", false, &budgets);
      !s.ok() || budgets == nullptr) {
    return s;
  }
  for (const auto& [name, n] : budgets->items()) {
    const std::string at =
        absl::StrCat("/max_calls_per_run_by_class/", EscapePointerToken(name));
    auto effect = SideEffectFromName(name);
    if (!effect.has_value()) {
      return r.Fail(at, "must be \"read\", \"write\" or \"destructive\"");
    }
    if (!n.is_number_integer() || n.get<int64_t>() < 1 ||
        n.get<int64_t>() > 1000000) {
      return r.Fail(at, "must be an integer from 1 to 1000000");
    }
    out->max_calls_per_run_by_class[*effect] = n.get<int>();
  }
  return absl::OkStatus();
}

Json ToolPolicyToJson(const ToolPolicy& policy) {
  Json j = {{"format_assertion", policy.format_assertion},
            {"requires_approval", policy.requires_approval}};
  const ArgumentPolicy* arguments = policy.arguments.get();
  if (arguments != nullptr && !arguments->coerce.empty()) {
    Json coerce = Json::object();
    for (const auto& [pointer, c] : arguments->coerce) {
      coerce[pointer] = CoercionName(c);
    }
    j["coerce"] = std::move(coerce);
  }
  if (arguments != nullptr && !arguments->bind.empty()) {
    j["bind"] = arguments->bind;
  }
  if (arguments != nullptr && !arguments->rules.empty()) {
    Json rules = Json::object();
    for (const auto& [pointer, rule] : arguments->rules) {
      rules[pointer] = ArgumentRuleToJson(rule);
    }
    j["arguments"] = std::move(rules);
  }
  if (policy.max_calls_per_run > 0) {
    j["max_calls_per_run"] = policy.max_calls_per_run;
  }
  if (!policy.parallel) j["parallel"] = false;
  return j;
}

void AddPolicySettings(const RunSettings& settings, Json* out) {
  if (!settings.require_approval_for.empty()) {
    Json classes = Json::array();
    for (SideEffect e : settings.require_approval_for) {
      classes.push_back(SideEffectName(e));
    }
    (*out)["require_approval_for"] = std::move(classes);
  }
  if (!settings.max_calls_per_run_by_class.empty()) {
    Json budgets = Json::object();
    for (const auto& [e, n] : settings.max_calls_per_run_by_class) {
      budgets[std::string(SideEffectName(e))] = n;
    }
    (*out)["max_calls_per_run_by_class"] = std::move(budgets);
  }
}

}  // namespace manifest_internal
}  // namespace toolgate
