// The policy members of a toolgate manifest (docs/policy.md): read
// strictly, applied through settings, and kept in the canonical form (so
// in the snapshot id) only when used.
#include <string>

#include "core/manifest/manifest.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;

std::string WithTools(const std::string& tools,
                      const std::string& settings = "{}") {
  return R"({"toolgate":"v1","settings":)" + settings + R"(,"tools":)" + tools +
         "}";
}

TEST(ManifestPolicy, ReadsEveryMember) {
  auto m = ParseManifest(WithTools(R"([{"name":"refund","input_schema":{},
    "side_effect":"destructive","policy":{
      "coerce":{"/amount":"integer_from_string","/items/*/gift":
                "boolean_from_string"},
      "bind":{"/customer_id":"tenant"},
      "max_calls_per_run":3,"parallel":false}}])",
                                   R"({"require_approval_for":["destructive"],
      "max_calls_per_run_by_class":{"write":10,"destructive":2}})"),
                         ManifestFormat::kToolgate);
  ASSERT_TRUE(m.ok()) << m.status();
  const ToolPolicy& p = m->tools[0].policy;
  ASSERT_NE(p.arguments, nullptr);
  EXPECT_THAT(p.arguments->coerce,
              ElementsAre(Pair("/amount", Coercion::kIntegerFromString),
                          Pair("/items/*/gift", Coercion::kBooleanFromString)));
  EXPECT_THAT(p.arguments->bind, ElementsAre(Pair("/customer_id", "tenant")));
  EXPECT_EQ(p.max_calls_per_run, 3);
  EXPECT_FALSE(p.parallel);
  EXPECT_TRUE(p.requires_approval);  // From its class.
  EXPECT_THAT(m->settings.require_approval_for,
              ElementsAre(SideEffect::kDestructive));
  EXPECT_THAT(m->settings.max_calls_per_run_by_class,
              ElementsAre(Pair(SideEffect::kWrite, 10),
                          Pair(SideEffect::kDestructive, 2)));
}

TEST(ManifestPolicy, ApprovalByClassAndTheToolsOwnOverride) {
  auto m = ParseManifest(
      WithTools(R"([
        {"name":"a_delete","input_schema":{},"side_effect":"destructive"},
        {"name":"b_purge","input_schema":{},"side_effect":"destructive",
         "policy":{"requires_approval":false}},
        {"name":"c_read","input_schema":{},"side_effect":"read"},
        {"name":"d_read","input_schema":{},"side_effect":"read",
         "policy":{"requires_approval":true}}])",
                R"({"require_approval_for":["destructive","destructive"]})"),
      ManifestFormat::kToolgate);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(m->tools[0].policy.requires_approval);
  EXPECT_FALSE(m->tools[1].policy.requires_approval);
  EXPECT_FALSE(m->tools[2].policy.requires_approval);
  EXPECT_TRUE(m->tools[3].policy.requires_approval);
  EXPECT_THAT(m->settings.require_approval_for,
              ElementsAre(SideEffect::kDestructive));
}

TEST(ManifestPolicy, CanonicalFormRoundTripsAndOmitsUnusedMembers) {
  const std::string plain = WithTools(R"([{"name":"a","input_schema":{}}])");
  auto m = ParseManifest(plain, ManifestFormat::kToolgate);
  ASSERT_TRUE(m.ok());
  const std::string canonical = CanonicalJson(ManifestToJson(*m));
  EXPECT_THAT(canonical, Not(HasSubstr("coerce")));
  EXPECT_THAT(canonical, Not(HasSubstr("parallel")));
  EXPECT_THAT(canonical, Not(HasSubstr("require_approval_for")));

  auto used =
      ParseManifest(WithTools(R"([{"name":"a","input_schema":{},"policy":{
        "coerce":{"/n":"integer_from_string"},"bind":{"/t":"tenant"},
        "max_calls_per_run":2,"parallel":false}}])",
                              R"({"max_calls_per_run_by_class":{"read":5},
                    "require_approval_for":["write"]})"),
                    ManifestFormat::kToolgate);
  ASSERT_TRUE(used.ok()) << used.status();
  auto again = ParseManifest(CanonicalJson(ManifestToJson(*used)),
                             ManifestFormat::kToolgate);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(ManifestId(*again), ManifestId(*used));
  EXPECT_NE(ManifestId(*used), ManifestId(*m));
  EXPECT_EQ(again->tools[0].policy.arguments->coerce,
            used->tools[0].policy.arguments->coerce);
  EXPECT_EQ(again->tools[0].policy.arguments->bind,
            used->tools[0].policy.arguments->bind);
  EXPECT_EQ(m->tools[0].policy.arguments, nullptr);
  EXPECT_FALSE(again->tools[0].policy.parallel);
  EXPECT_TRUE(again->tools[0].policy.requires_approval);
  EXPECT_EQ(again->settings.max_calls_per_run_by_class,
            used->settings.max_calls_per_run_by_class);
}

TEST(ManifestPolicy, ArgumentRulesOfEveryKindRoundTrip) {
  auto m = ParseManifest(WithTools(R"([{"name":"a","input_schema":{},
    "policy":{"arguments":{
      "/path":{"kind":"path","root":"/srv/reports"},
      "/files/*":{"kind":"path","root":"/srv","allow_absolute":true},
      "/url":{"kind":"url","schemes":["https"],"hosts":["*.example.org"],
              "ports":[443,8443]},
      "/any_url":{"kind":"url","schemes":["http","https"]},
      "/arg":{"kind":"shell_arg"},
      "/sku":{"kind":"identifier","pattern":"[A-Z]{3}-[0-9]+"},
      "/body":{"kind":"text","strip_html":true,"max_length":2000,
               "injection":"reject"},
      "/notes/*":{"kind":"text","max_length":1000000},
      "/prompt":{"kind":"text","injection":"reject"}}}}])"),
                         ManifestFormat::kToolgate);
  ASSERT_TRUE(m.ok()) << m.status();
  const auto& rules = m->tools[0].policy.arguments->rules;
  ASSERT_EQ(rules.size(), 9u);
  EXPECT_EQ(rules.at("/body").kind, ArgumentRule::Kind::kText);
  EXPECT_TRUE(rules.at("/body").text.strip_html);
  EXPECT_EQ(rules.at("/body").text.max_length, 2000);
  EXPECT_TRUE(rules.at("/body").text.reject_injection);
  EXPECT_FALSE(rules.at("/notes/*").text.strip_html);
  EXPECT_FALSE(rules.at("/notes/*").text.reject_injection);
  EXPECT_EQ(rules.at("/prompt").text.max_length, 0);
  const std::string canonical = CanonicalJson(ManifestToJson(*m));
  EXPECT_THAT(canonical,
              HasSubstr(R"("/body":{"injection":"reject","kind":"text",)"
                        R"("max_length":2000,"strip_html":true})"));
  EXPECT_THAT(canonical,
              HasSubstr(R"("/prompt":{"injection":"reject","kind":"text",)"
                        R"("strip_html":false})"));
  EXPECT_EQ(rules.at("/path").kind, ArgumentRule::Kind::kPath);
  EXPECT_EQ(rules.at("/path").path.root, "/srv/reports");
  EXPECT_TRUE(rules.at("/files/*").path.allow_absolute);
  EXPECT_THAT(rules.at("/url").url.ports, ElementsAre(443, 8443));
  EXPECT_TRUE(rules.at("/any_url").url.hosts.empty());
  EXPECT_EQ(rules.at("/arg").kind, ArgumentRule::Kind::kShellArg);
  ASSERT_TRUE(rules.at("/sku").identifier.has_value());
  EXPECT_EQ(rules.at("/sku").identifier->pattern(), "[A-Z]{3}-[0-9]+");
  auto again = ParseManifest(CanonicalJson(ManifestToJson(*m)),
                             ManifestFormat::kToolgate);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(ManifestId(*again), ManifestId(*m));
  EXPECT_EQ(CanonicalJson(ManifestToJson(*again)),
            CanonicalJson(ManifestToJson(*m)));
}

TEST(ManifestPolicy, RefusesArgumentRulesItCannotApply) {
  struct Case {
    const char* rule;
    const char* message;
  };
  const Case kCases[] = {
      {R"({"kind":"txt"})", "or \"text\""},
      {R"({"kind":"text","max_length":0})", "from 1 to 1000000"},
      {R"({"kind":"text","max_length":1000001})", "/max_length"},
      {R"({"kind":"text","max_length":-5})", "/max_length"},
      {R"({"kind":"text","max_length":10.5})", "/max_length"},
      {R"({"kind":"text","max_length":"10"})", "/max_length"},
      {R"({"kind":"text","injection":"warn"})",
       "/injection: tool \"a\": \"injection\" must be \"reject\""},
      {R"({"kind":"text","injection":""})", "must be \"reject\""},
      {R"({"kind":"text","injection":true})", "/injection"},
      {R"({"kind":"text","strip_html":"yes"})", "/strip_html"},
      {R"({"kind":"text","strip_html":true,"strip_tags":true})",
       "unknown field"},
      {R"({"kind":"text"})", "would check nothing"},
      {R"({"kind":"text","strip_html":false})", "would check nothing"},
      {R"({"kind":"regex"})", "/tools/0/policy/arguments/~1v/kind"},
      {R"({"root":"/srv"})", "\"kind\""},
      {R"("path")", "must be an object"},
      {R"({"kind":"path"})", "root"},
      {R"({"kind":"path","root":"relative/dir"})",
       "/tools/0/policy/arguments/~1v"},
      {R"({"kind":"path","root":"/srv","follow":true})", "unknown field"},
      {R"({"kind":"url","schemes":[]})",
       "/schemes: tool \"a\": must not be empty"},
      {R"({"kind":"url"})", "schemes"},
      {R"({"kind":"url","schemes":["https"],"hosts":[]})", "must not be empty"},
      {R"({"kind":"url","schemes":["gopher"]})", "gopher"},
      {R"({"kind":"url","schemes":["https"],"ports":[0]})", "/ports/0"},
      {R"({"kind":"shell_arg","strict":true})", "unknown field"},
      {R"({"kind":"identifier","pattern":"(unclosed"})", "/pattern"},
  };
  for (const Case& c : kCases) {
    auto m = ParseManifest(WithTools(std::string(R"([{"name":"a",
        "input_schema":{},"policy":{"arguments":{"/v":)") +
                                     c.rule + "}}}]"),
                           ManifestFormat::kToolgate);
    ASSERT_FALSE(m.ok()) << c.rule;
    EXPECT_THAT(m.status().message(), HasSubstr(c.message)) << c.rule;
  }
}

TEST(ManifestPolicy, RefusesWhatWouldBeSilentlyIgnored) {
  struct Case {
    const char* policy;
    const char* settings;
    const char* message;
  };
  const Case kCases[] = {
      {R"({"coerce":{"/n":"number_from_string"}})", "{}",
       "/tools/0/policy/coerce/~1n: tool \"a\": must be "
       "\"integer_from_string\""},
      {R"({"coerce":{"n":"integer_from_string"}})", "{}", "starting with"},
      {R"({"coerce":{"":"integer_from_string"}})", "{}", "starting with"},
      {R"({"coerce":{"/a~2":"integer_from_string"}})", "{}", "~0 or ~1"},
      {R"({"bind":{"/t":""}})", "{}", "run context key"},
      {R"({"bind":{"/t":7}})", "{}", "run context key"},
      {R"({"max_calls_per_run":0})", "{}", "from 1 to 1000000"},
      {R"({"parallel":"no"})", "{}", "parallel"},
      {R"({"budget":3})", "{}", "unknown field"},
      {"{}", R"({"require_approval_for":["dangerous"]})",
       "/settings/require_approval_for/0"},
      {"{}", R"({"require_approval_for":"destructive"})",
       "require_approval_for"},
      {"{}", R"({"max_calls_per_run_by_class":{"write":0}})",
       "/settings/max_calls_per_run_by_class/write"},
      {"{}", R"({"max_calls_per_run_by_class":{"all":1}})",
       "/settings/max_calls_per_run_by_class/all"},
  };
  for (const Case& c : kCases) {
    auto m = ParseManifest(WithTools(std::string(R"([{"name":"a",
        "input_schema":{},"policy":)") + c.policy +
                                         "}]",
                                     c.settings),
                           ManifestFormat::kToolgate);
    ASSERT_FALSE(m.ok()) << c.policy << c.settings;
    EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(m.status().message(), HasSubstr(c.message));
  }
}

}  // namespace
}  // namespace toolgate
