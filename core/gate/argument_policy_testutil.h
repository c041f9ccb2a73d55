// The argument policy tests' tools and gate: the gate's stages in the
// engine's order over a toolgate manifest of one tool per policy feature.
#ifndef TOOLGATE_CORE_GATE_ARGUMENT_POLICY_TESTUTIL_H_
#define TOOLGATE_CORE_GATE_ARGUMENT_POLICY_TESTUTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "core/gate/argument_policy.h"
#include "core/gate/check_arguments.h"
#include "core/gate/coerce.h"
#include "core/gate/decide.h"
#include "core/gate/resolve_tools.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace testing_tools {

inline constexpr char kManifest[] = R"({"toolgate":"v1","tools":[
  {"name":"order","side_effect":"write","input_schema":{"type":"object",
    "properties":{"qty":{"type":"integer","maximum":100},
      "gift":{"type":"boolean"},"note":{"type":"string"},
      "count":{"type":"integer"},
      "items":{"type":"array","items":{"type":"object",
        "properties":{"qty":{"type":"integer"}}}}}},
   "policy":{"coerce":{"/qty":"integer_from_string",
     "/gift":"boolean_from_string","/items/*/qty":"integer_from_string"}}},
  {"name":"refund","side_effect":"destructive","input_schema":{"type":"object",
    "properties":{"customer_id":{}}},
   "policy":{"bind":{"/customer_id":"tenant"}}},
  {"name":"read_file","side_effect":"read","input_schema":{"type":"object"},
   "policy":{"arguments":{"/path":{"kind":"path","root":"/srv/reports"},
     "/url":{"kind":"url","schemes":["https"]},
     "/arg":{"kind":"shell_arg"},
     "/sku":{"kind":"identifier","pattern":"[A-Z]{3}-[0-9]+"}}}},
  {"name":"notify","side_effect":"write","input_schema":{"type":"object"}},
  {"name":"email","side_effect":"write","input_schema":{"type":"object",
    "properties":{"body":{"type":"string","maxLength":12},"subject":{},
      "note":{"type":"string"},"tags":{"type":"array"}}},
   "policy":{"arguments":{"/body":{"kind":"text","strip_html":true},
     "/subject":{"kind":"text","max_length":5},
     "/note":{"kind":"text","strip_html":true,"injection":"reject"},
     "/tags/*":{"kind":"text","strip_html":true}}}},
  {"name":"lookup","side_effect":"read","input_schema":{"type":"object"}},
  {"name":"deploy","side_effect":"destructive","input_schema":{"type":"object"},
   "policy":{"parallel":false}}]})";

inline std::shared_ptr<const Snapshot> Tools() {
  static const auto* const snapshot = [] {
    auto m = ParseManifest(kManifest, ManifestFormat::kToolgate);
    EXPECT_TRUE(m.ok()) << m.status();
    auto s = Snapshot::Compile(*std::move(m), "policy");
    EXPECT_TRUE(s.ok()) << s.status();
    return new std::shared_ptr<const Snapshot>(*s);
  }();
  return *snapshot;
}

struct Call {
  std::string name;
  std::string arguments;
};

// The gate's stages in the engine's order, with `run` as the run.
// `as_sent`: forward_as_sent (nothing rewritten).
inline GateResult Gate(const std::vector<Call>& calls,
                       const RunFacts& run = {}, bool as_sent = false) {
  RawCalls raw;
  for (const Call& c : calls) {
    RawCall r;
    r.name = c.name;
    r.arguments = Json::parse(c.arguments);
    raw.calls.push_back(std::move(r));
  }
  GateResult result;
  GateOptions options;
  ResolveTools(*Tools(), std::move(raw), options, &result);
  CoerceArguments(&result, as_sent);
  CheckArguments(options, &result);
  CheckArgumentPolicy(run, &result);
  Decide(options, &result);
  return result;
}

inline std::vector<std::string> Codes(const GateResult& r) {
  std::vector<std::string> codes;
  for (const Violation& v : r.violations) codes.push_back(v.code);
  return codes;
}

}  // namespace testing_tools
}  // namespace toolgate

#endif  // TOOLGATE_CORE_GATE_ARGUMENT_POLICY_TESTUTIL_H_
