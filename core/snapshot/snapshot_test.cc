#include "core/snapshot/snapshot.h"

#include <string>

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

}  // namespace
}  // namespace toolgate
