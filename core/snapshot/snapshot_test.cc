#include "core/snapshot/snapshot.h"

#include <string>

#include "absl/strings/str_cat.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(SnapshotTest, SchemaWarningsNameToolAndPointer) {
  constexpr char kManifest[] = R"({"tools":[
    {"name":"update_ticket",
     "inputSchema":{"type":"object","requried":["ticket_id"],
                    "properties":{"priority":{"enum":["low","high"]},
                                  "budget":{"type":"number","maximun":10}}},
     "outputSchema":{"type":"object","additionalproperties":false}},
    {"name":"get_ticket","inputSchema":{"type":"object"}}]})";
  SnapshotStore store;
  auto snapshot = store.Create(kManifest, ManifestFormat::kMcp, "tickets");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_THAT(
      (*snapshot)->warnings(),
      ElementsAre(
          "tool \"update_ticket\": unknown keyword \"requried\" at /requried "
          "(did you mean \"required\"?): ignored, as JSON Schema specifies",
          "tool \"update_ticket\": unknown keyword \"maximun\" at "
          "/properties/budget/maximun (did you mean \"maximum\"?): ignored, "
          "as JSON Schema specifies",
          "tool \"update_ticket\": output schema: unknown keyword "
          "\"additionalproperties\" at /additionalproperties (did you mean "
          "\"additionalProperties\"?): ignored, as JSON Schema specifies"));
  // Warnings only: the misspelt keywords stay ignored.
  const CompiledTool* tool = (*snapshot)->FindTool("update_ticket");
  ASSERT_NE(tool, nullptr);
  EXPECT_TRUE(tool->input->IsValid(Json::parse(R"({"budget":99})")));
}

TEST(SnapshotTest, CleanSchemasAddNoWarnings) {
  auto snapshot = SnapshotStore().Create(
      R"({"tools":[{"name":"t","inputSchema":{"type":"object",
          "properties":{"requried":{"type":"string"}},"required":["requried"]}}]})",
      ManifestFormat::kMcp, "");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_THAT((*snapshot)->warnings(), IsEmpty());
}

TEST(SnapshotTest, ManifestWarningsAreKept) {
  auto snapshot = SnapshotStore().Create(
      R"([{"type":"function","function":{"name":"ping"}}])",
      ManifestFormat::kOpenAI, "");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_THAT((*snapshot)->warnings(),
              Contains(::testing::HasSubstr("tool \"ping\" has no parameters")));
}

TEST(SnapshotTest, NearestToolNamesAreBoundedHints) {
  const std::string long_name(kMaxToolNameBytes, 'a');
  auto snapshot = SnapshotStore().Create(
      absl::StrCat(R"([{"name":"search","input_schema":{}},
                      {"name":"Search2","input_schema":{}},
                      {"name":"update","input_schema":{}},
                      {"name":")",
                   long_name, R"(","input_schema":{}}])"),
      ManifestFormat::kAnthropic, "");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  const Snapshot& s = **snapshot;
  EXPECT_THAT(s.NearestToolNames("SEARCH"), ElementsAre("search", "Search2"));
  EXPECT_THAT(s.NearestToolNames("serch", 1), ElementsAre("search"));
  EXPECT_THAT(s.NearestToolNames("delete_everything"), IsEmpty());
  // One edit from a tool name, but longer than any tool name can be: a
  // name past the manifest limit is never compared.
  EXPECT_THAT(s.NearestToolNames(long_name + "a"), IsEmpty());
  EXPECT_THAT(s.NearestToolNames(long_name.substr(1) + "b"),
              ElementsAre(long_name));
  // Past the cutoff of 8 edits, even for long names.
  EXPECT_THAT(s.NearestToolNames(std::string(100, 'a') + std::string(28, 'b')),
              IsEmpty());
}

TEST(SnapshotTest, ExponentialSchemaIsRefusedAtCreate) {
  // d0..d29, each an anyOf of the next twice: 2^30 evaluations of one
  // argument if it were accepted.
  std::string defs;
  for (int i = 0; i < 30; ++i) {
    defs += "\"d" + std::to_string(i) + "\":{\"anyOf\":[{\"$ref\":\"#/$defs/d" +
            std::to_string(i + 1) + "\"},{\"$ref\":\"#/$defs/d" +
            std::to_string(i + 1) + "\"}]},";
  }
  const std::string manifest =
      R"({"tools":[{"name":"deep","inputSchema":{"type":"object",)"
      R"("properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{)" +
      defs + R"("d30":{"type":"string"}}}}]})";
  auto snapshot = SnapshotStore().Create(manifest, ManifestFormat::kMcp, "");
  ASSERT_FALSE(snapshot.ok());
  EXPECT_EQ(snapshot.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(snapshot.status().message()),
              ::testing::AllOf(::testing::HasSubstr("tool \"deep\""),
                               ::testing::HasSubstr("schema_too_complex"),
                               ::testing::HasSubstr("/$defs/d17")));
}

TEST(SnapshotTest, MisspeltFormatWarnsWithToolAndPointer) {
  auto snapshot = SnapshotStore().Create(
      R"({"tools":[{"name":"send_mail","inputSchema":{"type":"object",
          "properties":{"to":{"type":"string","format":"emial"}}}}]})",
      ManifestFormat::kMcp, "");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_THAT((*snapshot)->warnings(),
              ElementsAre("tool \"send_mail\": unknown format \"emial\" at "
                          "/properties/to/format (did you mean \"email\"?): "
                          "ignored, as JSON Schema specifies"));
}

}  // namespace
}  // namespace toolgate
