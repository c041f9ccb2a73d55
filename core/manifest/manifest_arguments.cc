// policy.arguments: {POINTER: {"kind": ...}} read strictly into
// ArgumentRules, and written back in canonical form.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/manifest/manifest_policy.h"

namespace toolgate {
namespace manifest_internal {
namespace {

absl::Status ReadStrings(FieldReader& r, const Json& rule, const char* key,
                         bool required, std::vector<std::string>* out) {
  const Json* list = nullptr;
  if (auto s = r.Array(key, required, &list); !s.ok() || list == nullptr) {
    return s;
  }
  // An explicit empty list would widen the rule (e.g. every host).
  if (list->empty()) return r.Fail(absl::StrCat("/", key), "must not be empty");
  for (size_t i = 0; i < list->size(); ++i) {
    if (!(*list)[i].is_string()) {
      return r.Fail(absl::StrCat("/", key, "/", i), "must be a string");
    }
    out->push_back((*list)[i].get<std::string>());
  }
  return absl::OkStatus();
}

absl::Status ReadPorts(FieldReader& r, const Json& rule,
                       std::vector<int>* out) {
  const Json* list = nullptr;
  if (auto s = r.Array("ports", false, &list); !s.ok() || list == nullptr) {
    return s;
  }
  if (list->empty()) return r.Fail("/ports", "must not be empty");
  for (size_t i = 0; i < list->size(); ++i) {
    const Json& port = (*list)[i];
    if (!port.is_number_integer() || port.get<int64_t>() < 1 ||
        port.get<int64_t>() > 65535) {
      return r.Fail(absl::StrCat("/ports/", i),
                    "must be an integer from 1 to 65535");
    }
    out->push_back(port.get<int>());
  }
  return absl::OkStatus();
}

// {"kind":"text","strip_html":bool,"max_length":N,"injection":"reject"}.
absl::Status ReadTextRule(FieldReader& r, const Json& rule,
                          policy::TextRule* out) {
  if (auto s = r.OnlyKeys({"kind", "strip_html", "max_length", "injection"});
      !s.ok())
    return s;
  if (auto s = r.Bool("strip_html", &out->strip_html); !s.ok()) return s;
  if (auto s = r.Int("max_length", 1, policy::kMaxTextLength, &out->max_length);
      !s.ok())
    return s;
  std::string injection;
  if (auto s = r.String("injection", false, &injection); !s.ok()) return s;
  // Only "reject": a "warn" the gate could not act on is refused, not
  // silently ignored.
  if (rule.contains("injection")) {
    if (injection != "reject") {
      return r.Fail("/injection", "\"injection\" must be \"reject\"");
    }
    out->reject_injection = true;
  }
  if (auto s = policy::ValidateTextRule(*out); !s.ok()) {
    return r.Fail("", s.message());
  }
  return absl::OkStatus();
}

// The kind's own members; `r` reads the rule object.
absl::Status ReadRuleBody(FieldReader& r, const Json& rule,
                          const std::string& kind, ArgumentRule* out) {
  absl::Status checked;
  if (kind == "path") {
    out->kind = ArgumentRule::Kind::kPath;
    if (auto s = r.OnlyKeys({"kind", "root", "allow_absolute"}); !s.ok())
      return s;
    if (auto s = r.String("root", true, &out->path.root); !s.ok()) return s;
    if (auto s = r.Bool("allow_absolute", &out->path.allow_absolute); !s.ok())
      return s;
    checked = policy::ValidatePathRule(out->path);
  } else if (kind == "url") {
    out->kind = ArgumentRule::Kind::kUrl;
    if (auto s = r.OnlyKeys({"kind", "schemes", "hosts", "ports"}); !s.ok())
      return s;
    if (auto s = ReadStrings(r, rule, "schemes", true, &out->url.schemes);
        !s.ok())
      return s;
    if (auto s = ReadStrings(r, rule, "hosts", false, &out->url.hosts); !s.ok())
      return s;
    if (auto s = ReadPorts(r, rule, &out->url.ports); !s.ok()) return s;
    checked = policy::ValidateUrlRule(out->url);
  } else if (kind == "shell_arg") {
    out->kind = ArgumentRule::Kind::kShellArg;
    return r.OnlyKeys({"kind"});
  } else if (kind == "identifier") {
    out->kind = ArgumentRule::Kind::kIdentifier;
    if (auto s = r.OnlyKeys({"kind", "pattern"}); !s.ok()) return s;
    std::string pattern;
    if (auto s = r.String("pattern", true, &pattern); !s.ok()) return s;
    auto compiled = policy::IdentifierRule::Compile(pattern);
    if (!compiled.ok()) return r.Fail("/pattern", compiled.status().message());
    out->identifier = *std::move(compiled);
    return absl::OkStatus();
  } else if (kind == "text") {
    out->kind = ArgumentRule::Kind::kText;
    return ReadTextRule(r, rule, &out->text);
  } else {
    return r.Fail("/kind",
                  "must be \"path\", \"url\", \"shell_arg\", "
                  "\"identifier\" or \"text\"");
  }
  if (!checked.ok()) return r.Fail("", checked.message());
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadArgumentRules(FieldReader& p, const Json& arguments,
                               const std::string& policy_pointer,
                               const std::string& tool, ArgumentPolicy* out) {
  for (const auto& [pointer, rule] : arguments.items()) {
    const std::string at =
        absl::StrCat("/arguments/", EscapePointerToken(pointer));
    if (auto s = CheckArgumentPointer(p, at, pointer); !s.ok()) return s;
    if (!rule.is_object()) {
      return p.Fail(at, "must be an object with a \"kind\"");
    }
    FieldReader r(rule, policy_pointer + at, tool);
    std::string kind;
    if (auto s = r.String("kind", true, &kind); !s.ok()) return s;
    ArgumentRule parsed;
    if (auto s = ReadRuleBody(r, rule, kind, &parsed); !s.ok()) return s;
    out->rules.emplace(pointer, std::move(parsed));
  }
  return absl::OkStatus();
}

Json ArgumentRuleToJson(const ArgumentRule& rule) {
  Json j = {{"kind", ArgumentRuleKindName(rule.kind)}};
  switch (rule.kind) {
    case ArgumentRule::Kind::kPath:
      j["root"] = rule.path.root;
      j["allow_absolute"] = rule.path.allow_absolute;
      break;
    case ArgumentRule::Kind::kUrl:
      j["schemes"] = rule.url.schemes;
      if (!rule.url.hosts.empty()) j["hosts"] = rule.url.hosts;
      if (!rule.url.ports.empty()) j["ports"] = rule.url.ports;
      break;
    case ArgumentRule::Kind::kIdentifier:
      j["pattern"] = rule.identifier->pattern();
      break;
    case ArgumentRule::Kind::kText:
      j["strip_html"] = rule.text.strip_html;
      if (rule.text.max_length > 0) j["max_length"] = rule.text.max_length;
      if (rule.text.reject_injection) j["injection"] = "reject";
      break;
    case ArgumentRule::Kind::kShellArg:
      break;
  }
  return j;
}

}  // namespace manifest_internal

absl::string_view ArgumentRuleKindName(ArgumentRule::Kind kind) {
  switch (kind) {
    case ArgumentRule::Kind::kPath:
      return "path";
    case ArgumentRule::Kind::kUrl:
      return "url";
    case ArgumentRule::Kind::kShellArg:
      return "shell_arg";
    case ArgumentRule::Kind::kIdentifier:
      return "identifier";
    case ArgumentRule::Kind::kText:
      return "text";
  }
  return "shell_arg";
}

}  // namespace toolgate
