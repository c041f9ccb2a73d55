#include "core/mesh/mcp_manifest.h"

#include <string>
#include <vector>

#include "core/manifest/manifest.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace mesh {
namespace {

Json Tool(const char* json) { return *ParseStrictJson(json); }

TEST(McpManifest, AnnotationsGiveTheClassesCreateSnapshotGives) {
  // docs/policy.md's table, through core/manifest's own MCP reader.
  struct Case {
    const char* annotations;
    const char* side_effect;
  } cases[] = {
      {"", "destructive"},
      {R"(,"annotations":{"readOnlyHint":true})", "read"},
      {R"(,"annotations":{"destructiveHint":false})", "write"},
      {R"(,"annotations":{"destructiveHint":true})", "destructive"},
      {R"(,"annotations":{"readOnlyHint":true,"destructiveHint":true})",
       "destructive"},
  };
  for (const auto& c : cases) {
    const std::string json = std::string(R"({"name":"t","inputSchema":{})") +
                             c.annotations + "}";
    absl::StatusOr<Json> tool = ToolgateTool(Tool(json.c_str()), McpPolicy());
    ASSERT_TRUE(tool.ok()) << json;
    EXPECT_EQ((*tool)["side_effect"], c.side_effect) << json;
    EXPECT_EQ((*tool)["output_format"], "mcp");
  }
}

TEST(McpManifest, MergesThePolicyFile) {
  absl::StatusOr<McpPolicy> policy = ParseMcpPolicy(R"({
    "settings": {"require_approval_for": ["destructive"]},
    "tools": {"write_file": {"side_effect": "destructive",
      "policy": {"arguments": {"/path": {"kind": "path", "root": "/data"}}}}}})");
  ASSERT_TRUE(policy.ok()) << policy.status();
  absl::StatusOr<Json> tool = ToolgateTool(
      Tool(R"({"name":"write_file","description":"d","inputSchema":{"type":"object"},
               "outputSchema":{"type":"object"},
               "annotations":{"readOnlyHint":false,"destructiveHint":false}})"),
      *policy);
  ASSERT_TRUE(tool.ok());
  EXPECT_EQ((*tool)["side_effect"], "destructive");  // The policy's.
  EXPECT_EQ((*tool)["output_schema"], Json({{"type", "object"}}));
  EXPECT_EQ((*tool)["policy"]["arguments"]["/path"]["root"], "/data");
  const std::string manifest = ToolgateManifest({*tool}, *policy);
  absl::StatusOr<Manifest> read =
      ParseManifest(manifest, ManifestFormat::kToolgate);
  ASSERT_TRUE(read.ok()) << read.status() << manifest;
  EXPECT_TRUE(read->tools[0].policy.requires_approval);
  EXPECT_EQ(read->tools[0].side_effect, SideEffect::kDestructive);
}

TEST(McpManifest, RefusesABadPolicyFileAtStart) {
  for (const char* bad : {
           "not json",
           R"([])",
           R"({"tool": {}})",
           R"({"tools": []})",
           R"({"tools": {"a": {"polcy": {}}}})",
           R"({"tools": {"a": {"side_effect": "sometimes"}}})",
           R"({"tools": {"a": {"side_effect": 1}}})",
           R"({"tools": {"a": {"policy": {"requires_aproval": true}}}})",
           R"({"tools": {"a": {"policy": {"arguments": {"/p": {"kind": "paht"}}}}}})",
           R"({"settings": {"require_approval_for": ["dangerous"]}})",
           R"({"settings": {"max_consecutive_reject": 3}})",
       }) {
    EXPECT_FALSE(ParseMcpPolicy(bad).ok()) << bad;
  }
  EXPECT_TRUE(ParseMcpPolicy("{}").ok());
}

TEST(McpManifest, NamesPolicyToolsTheServerDoesNotList) {
  absl::StatusOr<McpPolicy> policy =
      ParseMcpPolicy(R"({"tools": {"wirte_file": {}, "read_file": {}}})");
  ASSERT_TRUE(policy.ok());
  EXPECT_EQ(UnlistedPolicyTools(*policy, {"read_file", "write_file"}),
            std::vector<std::string>{"wirte_file"});
}

TEST(McpManifest, RefusesToolsCoreManifestRefuses) {
  for (const char* bad : {R"({"name":"bad name","inputSchema":{}})",
                          R"({"name":"t"})",
                          R"({"name":"t","inputSchema":5})"}) {
    EXPECT_FALSE(ToolgateTool(Tool(bad), McpPolicy()).ok()) << bad;
  }
}

}  // namespace
}  // namespace mesh
}  // namespace toolgate
