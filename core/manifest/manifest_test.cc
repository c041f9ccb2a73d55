#include "core/manifest/manifest.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kOpenAI[] = R"([
  {"type":"function","function":{"name":"get_ticket","description":"Read",
   "parameters":{"type":"object","properties":{"id":{"type":"string"}},
                 "required":["id"]},"strict":true}},
  {"type":"function","function":{"name":"close_ticket","description":"Close",
   "parameters":{"type":"object"}}}
])";

constexpr char kAnthropic[] = R"([
  {"name":"close_ticket","description":"Close","input_schema":{"type":"object"}},
  {"name":"get_ticket","description":"Read","input_schema":{"required":["id"],
   "properties":{"id":{"type":"string"}},"type":"object"}}
])";

constexpr char kMcp[] = R"({"tools":[
  {"name":"search","inputSchema":{"type":"object"},
   "annotations":{"readOnlyHint":true}},
  {"name":"purge","inputSchema":{"type":"object"},
   "annotations":{"destructiveHint":true,"readOnlyHint":true}},
  {"name":"update","inputSchema":{"type":"object"},
   "outputSchema":{"type":"object"}},
  {"name":"vague","inputSchema":{"type":"object"},
   "annotations":{"readOnlyHint":"true","destructiveHint":1}},
  {"name":"write_only","inputSchema":{"type":"object"},
   "annotations":{"destructiveHint":false}}
]})";

constexpr char kToolgate[] = R"({"toolgate":"v1",
  "tools":[{"name":"refund","input_schema":{"type":"object"},
            "side_effect":"destructive",
            "policy":{"requires_approval":true,"format_assertion":true}}],
  "documents":{"https://schemas.example/money.json":{"type":"number"}},
  "settings":{"max_consecutive_rejects":3,
              "kill_switch":{"threshold":2,"window":4}}})";

TEST(Manifest, ReadsEachFormatUnderAuto) {
  struct Case {
    const char* json;
    ManifestFormat format;
    size_t tools;
  };
  for (const Case& c : {Case{kOpenAI, ManifestFormat::kOpenAI, 2},
                        Case{kAnthropic, ManifestFormat::kAnthropic, 2},
                        Case{kMcp, ManifestFormat::kMcp, 5},
                        Case{kToolgate, ManifestFormat::kToolgate, 1}}) {
    auto m = ParseManifest(c.json, ManifestFormat::kAuto);
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_EQ(m->format, c.format);
    EXPECT_EQ(m->tools.size(), c.tools);
    // Explicit format agrees with detection.
    EXPECT_TRUE(ParseManifest(c.json, c.format).ok());
  }
}

TEST(Manifest, SameToolsInAnyFormatOrKeyOrderHaveOneId) {
  auto a = ParseManifest(kOpenAI, ManifestFormat::kAuto);
  auto b = ParseManifest(kAnthropic, ManifestFormat::kAuto);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(ManifestId(*a), ManifestId(*b));
  EXPECT_THAT(ManifestId(*a), testing::MatchesRegex("sha256:[0-9a-f]{64}"));
  auto c = ParseManifest(
      std::string(kAnthropic)
          .replace(std::string(kAnthropic).find("Close"), 5, "Shut"),
      ManifestFormat::kAuto);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(ManifestId(*a), ManifestId(*c));
}

TEST(Manifest, OutputFormatIsPartOfTheId) {
  auto mcp = ParseManifest(kMcp, ManifestFormat::kMcp);
  ASSERT_TRUE(mcp.ok());
  EXPECT_EQ(mcp->tools[0].output_format, OutputFormat::kMcp);
  // The same tools in toolgate format, but declared plain JSON: a different
  // snapshot, because outputs are read differently.
  Manifest plain = *mcp;
  for (ToolSpec& t : plain.tools) t.output_format = OutputFormat::kJson;
  EXPECT_NE(ManifestId(plain), ManifestId(*mcp));
  auto round_trip = ParseManifest(CanonicalJson(ManifestToJson(*mcp)),
                                  ManifestFormat::kToolgate);
  ASSERT_TRUE(round_trip.ok()) << round_trip.status();
  EXPECT_EQ(ManifestId(*round_trip), ManifestId(*mcp));
  EXPECT_EQ(round_trip->tools[0].output_format, OutputFormat::kMcp);
}

TEST(Manifest, McpAnnotationsMapToSideEffects) {
  auto m = ParseManifest(kMcp, ManifestFormat::kMcp);
  ASSERT_TRUE(m.ok());
  // Sorted by name: purge, search, update, vague, write_only. The MCP
  // spec's defaults apply: without annotations a tool may destroy.
  EXPECT_EQ(m->tools[0].side_effect, SideEffect::kDestructive);
  EXPECT_EQ(m->tools[1].side_effect, SideEffect::kRead);
  EXPECT_EQ(m->tools[2].side_effect, SideEffect::kDestructive);
  EXPECT_TRUE(m->tools[2].output_schema.has_value());
  // Hints count only as exact booleans; anything else is no signal, and
  // no signal is the spec's default: destructive.
  EXPECT_EQ(m->tools[3].side_effect, SideEffect::kDestructive);
  // Only an explicit destructiveHint false makes a non-read tool a write.
  EXPECT_EQ(m->tools[4].side_effect, SideEffect::kWrite);
}

TEST(Manifest, ToolgateCarriesPolicyDocumentsAndSettings) {
  auto m = ParseManifest(kToolgate, ManifestFormat::kAuto);
  ASSERT_TRUE(m.ok()) << m.status();
  const ToolSpec& t = m->tools[0];
  EXPECT_TRUE(t.policy.requires_approval);
  EXPECT_TRUE(t.policy.format_assertion);
  EXPECT_EQ(t.side_effect, SideEffect::kDestructive);
  EXPECT_EQ(m->documents.count("https://schemas.example/money.json"), 1u);
  EXPECT_EQ(m->settings.max_consecutive_rejects, 3);
  EXPECT_EQ(m->settings.kill_switch_threshold, 2);
  EXPECT_EQ(m->settings.kill_switch_window, 4);
  // The canonical form reads back to the same id.
  auto again = ParseManifest(CanonicalJson(ManifestToJson(*m)),
                             ManifestFormat::kToolgate);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(ManifestId(*again), ManifestId(*m));
}

TEST(Manifest, AcceptsDistinctNamesInTheSafeCharacterSet) {
  auto m = ParseManifest(R"([
    {"name":"get_ticket","input_schema":{}},
    {"name":"get_tickets","input_schema":{}},
    {"name":"github.create_issue","input_schema":{}},
    {"name":"user-profile/update","input_schema":{}},
    {"name":"DATA_EXPORT_v2","input_schema":{}},
    {"name":"getUser","input_schema":{}},
    {"name":"get-ticket","input_schema":{}},
    {"name":"v1_list","input_schema":{}},
    {"name":"v2_list","input_schema":{}}
  ])",
                         ManifestFormat::kAnthropic);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->tools.size(), 9u);
}

TEST(Manifest, OpenAIWithoutParametersTakesNoArguments) {
  auto m = ParseManifest(R"([{"type":"function","function":{"name":"ping"}}])",
                         ManifestFormat::kAuto);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->tools[0].input_schema["additionalProperties"], false);
  EXPECT_THAT(m->warnings, ElementsAre(HasSubstr("no parameters")));
}

struct Refusal {
  std::string name;
  std::string json;
  ManifestFormat format;
  std::string message;  // Substring the refusal must contain.
};

void PrintTo(const Refusal& r, std::ostream* os) { *os << r.name; }

class ManifestRefuses : public testing::TestWithParam<Refusal> {};

TEST_P(ManifestRefuses, WithClearMessage) {
  auto m = ParseManifest(GetParam().json, GetParam().format);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(m.status().message()), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Table, ManifestRefuses,
    testing::Values(
        Refusal{"mixed", R"([{"type":"function","function":{"name":"a"}},
                           {"name":"b","input_schema":{}}])",
                ManifestFormat::kAuto, "ambiguous"},
        Refusal{"unknown_shape", R"({"functions":[]})", ManifestFormat::kAuto,
                "cannot detect"},
        Refusal{"empty_array", "[]", ManifestFormat::kAuto, "ambiguous"},
        Refusal{"not_json", "[{", ManifestFormat::kAuto, "not strict JSON"},
        Refusal{"duplicate_key", R"({"tools":[],"tools":[]})",
                ManifestFormat::kAuto, "duplicate object key"},
        Refusal{"duplicate_name", R"([{"name":"a","input_schema":{}},
                                    {"name":"a","input_schema":{}}])",
                ManifestFormat::kAnthropic, "duplicate tool name \"a\""},
        Refusal{"missing_schema", R"([{"name":"a"}])",
                ManifestFormat::kAnthropic,
                "at /0: tool \"a\": missing required field \"input_schema\""},
        Refusal{"schema_not_object",
                R"({"tools":[{"name":"a","inputSchema":3}]})",
                ManifestFormat::kMcp, "/tools/0/inputSchema"},
        Refusal{"bad_type", R"([{"type":"func","function":{"name":"a"}}])",
                ManifestFormat::kOpenAI, "at /0/type"},
        Refusal{"bad_name", R"([{"name":"a b","input_schema":{}}])",
                ManifestFormat::kAnthropic, "/0/name"},
        Refusal{"no_tools", R"({"toolgate":"v1","tools":[]})",
                ManifestFormat::kToolgate, "declares no tools"},
        Refusal{"typo_policy", R"({"toolgate":"v1","tools":[{"name":"a",
                  "input_schema":{},"policy":{"require_approval":true}}]})",
                ManifestFormat::kToolgate,
                "/tools/0/policy/require_approval: tool \"a\": unknown field"},
        Refusal{"bad_side_effect", R"({"toolgate":"v1","tools":[{"name":"a",
                  "input_schema":{},"side_effect":"safe"}]})",
                ManifestFormat::kToolgate, "side_effect must be"},
        Refusal{"bad_settings", R"({"toolgate":"v1","tools":[{"name":"a",
                  "input_schema":{}}],"settings":{"max_consecutive_rejects":0}})",
                ManifestFormat::kToolgate, "from 1 to 1000"},
        Refusal{"wrong_explicit_format", kMcp, ManifestFormat::kOpenAI,
                "tools array"},
        Refusal{"window_below_default_threshold",
                R"({"toolgate":"v1","tools":[{"name":"a","input_schema":{}}],
                  "settings":{"kill_switch":{"window":2}}})",
                ManifestFormat::kToolgate, "must not exceed window"},
        Refusal{"bad_output_format",
                R"({"toolgate":"v1","tools":[{"name":"a","input_schema":{},
                  "output_format":"xml"}]})",
                ManifestFormat::kToolgate, "output_format must be"},
        // Names a model, a reviewer or an executor could take for another:
        // refused, so a call can never reach a tool that merely looks like
        // the one named.
        Refusal{"name_case_only",
                R"([{"name":"get_ticket","input_schema":{}},
                    {"name":"Get_Ticket","input_schema":{}}])",
                ManifestFormat::kAnthropic,
                "tool_name_confusable: tool names \"Get_Ticket\" and "
                "\"get_ticket\" differ only in case or look-alike "
                "characters"},
        Refusal{"name_capital_i_for_l",
                R"({"tools":[{"name":"send_email","inputSchema":{}},
                             {"name":"send_emaiI","inputSchema":{}}]})",
                ManifestFormat::kMcp, "tool_name_confusable"},
        Refusal{"name_digit_one_for_l",
                R"([{"name":"delete_fi1e","input_schema":{}},
                    {"name":"delete_file","input_schema":{}}])",
                ManifestFormat::kAnthropic, "tool_name_confusable"},
        Refusal{"name_zero_for_o",
                R"([{"name":"t0ol","input_schema":{}},
                    {"name":"tool","input_schema":{}}])",
                ManifestFormat::kAnthropic, "tool_name_confusable"},
        Refusal{"name_rn_for_m",
                R"([{"name":"rnerge","input_schema":{}},
                    {"name":"merge","input_schema":{}}])",
                ManifestFormat::kAnthropic, "tool_name_confusable"},
        Refusal{
            "name_zero_width_space",
            R"([{"type":"function","function":{"name":"get\u200bticket"}}])",
            ManifestFormat::kOpenAI,
            "at /0/function/name: tool_name_confusable: tool name "
            "\"get<U+200B>ticket\" has U+200B at byte 3"},
        Refusal{"name_cyrillic_a",
                R"([{"name":"cre\u0430te_ticket","input_schema":{}}])",
                ManifestFormat::kAnthropic,
                "tool_name_confusable: tool name \"cre<U+0430>te_ticket\" "
                "has U+0430 at byte 3"},
        Refusal{"name_trailing_space",
                R"({"toolgate":"v1","tools":[{"name":"get_ticket ",
                  "input_schema":{}}]})",
                ManifestFormat::kToolgate,
                "at /tools/0/name: tool_name_confusable"},
        Refusal{"name_soft_hyphen",
                R"([{"name":"get\u00adticket","input_schema":{}}])",
                ManifestFormat::kAnthropic, "tool_name_confusable"},
        Refusal{"name_bidi_override",
                R"([{"name":"get_\u202eticket","input_schema":{}}])",
                ManifestFormat::kAnthropic, "tool_name_confusable"},
        Refusal{"name_fullwidth_letter",
                R"([{"name":"get_\uff54icket","input_schema":{}}])",
                ManifestFormat::kAnthropic, "tool_name_confusable"},
        Refusal{"name_pipe_for_l", R"([{"name":"get_|ist","input_schema":{}}])",
                ManifestFormat::kAnthropic, "tool_name_confusable"},
        Refusal{"name_empty", R"([{"name":"","input_schema":{}}])",
                ManifestFormat::kAnthropic, "1 to 128 bytes"}),
    [](const testing::TestParamInfo<Refusal>& info) {
      return info.param.name;
    });

}  // namespace
}  // namespace toolgate
