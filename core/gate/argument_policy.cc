#include "core/gate/argument_policy.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/gate/argument_walk.h"
#include "core/policy/argument_checks.h"
#include "core/policy/text_checks.h"

namespace toolgate {
namespace {

// Collects one call's findings.
class Findings {
 public:
  Findings(CheckedCall& call, int index, GateResult* result)
      : call_(call), index_(index), result_(result) {}

  void Add(std::string code, std::string pointer, std::string message) {
    Violation v;
    v.code = std::move(code);
    v.tool = call_.raw.name;
    v.pointer = std::move(pointer);
    v.message = std::move(message);
    v.call_index = index_;
    result_->violations.push_back(std::move(v));
    call_.valid = false;
  }
  void Add(const std::optional<policy::ArgumentViolation>& v,
           const std::string& pointer) {
    if (v.has_value()) Add(v->code, pointer, v->message);
  }

 private:
  CheckedCall& call_;
  const int index_;
  GateResult* const result_;
};

absl::string_view InvalidCode(ArgumentRule::Kind kind) {
  switch (kind) {
    case ArgumentRule::Kind::kPath:
      return "path_invalid";
    case ArgumentRule::Kind::kUrl:
      return "url_invalid";
    case ArgumentRule::Kind::kShellArg:
      return "shell_metacharacter";
    case ArgumentRule::Kind::kIdentifier:
      return "identifier_invalid";
    case ArgumentRule::Kind::kText:
      return "text_invalid";
  }
  return "identifier_invalid";
}

std::optional<policy::ArgumentViolation> Check(const ArgumentRule& rule,
                                               absl::string_view value) {
  switch (rule.kind) {
    case ArgumentRule::Kind::kPath:
      return policy::CheckPath(value, rule.path);
    case ArgumentRule::Kind::kUrl:
      return policy::CheckUrl(value, rule.url);
    case ArgumentRule::Kind::kShellArg:
      return policy::CheckShellArg(value);
    case ArgumentRule::Kind::kIdentifier:
      return policy::CheckIdentifier(value, *rule.identifier);
    case ArgumentRule::Kind::kText:
      // Already stripped by "policy (coerce)" when the rule says so.
      return policy::CheckText(value, rule.text);
  }
  return policy::MakeViolation("identifier_invalid", "unknown rule");
}

void CheckBindings(const ArgumentPolicy& policy, const RunFacts& run,
                   const Json& args, Findings& out) {
  for (const auto& [pointer, bound_key] : policy.bind) {
    // A named copy: lambdas cannot capture structured bindings (C++17).
    const std::string& key = bound_key;
    const auto it = run.context == nullptr
                        ? std::map<std::string, std::string>::const_iterator()
                        : run.context->find(key);
    if (run.context == nullptr || it == run.context->end()) {
      out.Add("binding_context_missing", pointer,
              run.context == nullptr
                  ? absl::StrCat("this argument is bound to the run context "
                                 "key \"",
                                 key, "\": the call needs a run")
                  : absl::StrCat("the run has no context key \"", key,
                                 "\" to bind this argument to"));
      continue;
    }
    ForEachAt(args, pointer, [&](const Json& value, const std::string& at) {
      if (!value.is_string() ||
          value.get_ref<const std::string&>() != it->second) {
        out.Add("binding_mismatch", at,
                absl::StrCat("must be the run's \"", key,
                             "\" (this run's value, exactly)"));
      }
    });
  }
}

void CheckRules(const ArgumentPolicy& policy, const Json& args, Findings& out) {
  for (const auto& [pointer, rule] : policy.rules) {
    ForEachAt(args, pointer,
              [&, &r = rule](const Json& value, const std::string& at) {
                if (!value.is_string()) {
                  out.Add(std::string(InvalidCode(r.kind)), at,
                          absl::StrCat("must be a string (a ",
                                       ArgumentRuleKindName(r.kind), ")"));
                  return;
                }
                out.Add(Check(r, value.get_ref<const std::string&>()), at);
              });
  }
}

// Values and member names alike: a name is as free a channel as a value
// (`{"headers": {"<key>": "x"}}`). A name's finding carries the member's
// pointer; the message says it is the name.
void CheckStrings(const CheckedCall& call, const RunFacts& run, Findings& out) {
  const bool writes = call.tool->spec.side_effect != SideEffect::kRead;
  if (!writes && run.leaks == nullptr) return;
  const auto scan = [&](const std::string& text, const ValuePath& at,
                        policy::ArgumentPart part) {
    if (writes) {
      if (auto found = policy::FindSecret(text, part)) {
        out.Add(found, at.Pointer());
      }
    }
    if (run.leaks != nullptr) {
      if (auto found = run.leaks->Check(text, part)) {
        out.Add(found, at.Pointer());
      }
    }
  };
  ForEachString(call.raw.arguments, scan);
}

}  // namespace

void CheckArgumentPolicy(const RunFacts& run, GateResult* result) {
  const bool several = result->calls.size() > 1;
  for (size_t i = 0; i < result->calls.size(); ++i) {
    CheckedCall& call = result->calls[i];
    if (!call.valid) continue;
    Findings out(call, static_cast<int>(i), result);
    const ToolPolicy& policy = call.tool->spec.policy;
    if (!policy.parallel && several) {
      out.Add("parallel_not_allowed", "",
              absl::StrCat("\"", call.raw.name,
                           "\" must be the only call of its turn: call it "
                           "alone, then the others"));
    }
    if (policy.arguments != nullptr) {
      CheckBindings(*policy.arguments, run, call.raw.arguments, out);
      CheckRules(*policy.arguments, call.raw.arguments, out);
    }
    CheckStrings(call, run, out);
  }
}

}  // namespace toolgate
