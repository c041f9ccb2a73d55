// A manifest's compile work is bounded (CompileBudget, hardening round 2,
// item 11): each schema is bounded by itself, but a manifest can multiply
// one schema's work by its tool count (every tool that $refs a document
// compiles and checks the document again; an identical schema dropped
// from residence compiles again for the next tool that repeats it). Each
// way is refused with schema_too_complex once past the budget, and the
// same manifests within it are accepted.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/snapshot/snapshot.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "schemas/embedded_examples.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;

constexpr char kDoc[] = "https://example.test/shared.json";

// A toolgate manifest of `tools` tools whose input schema $refs `doc`
// (`same_text`: every tool's schema is the same text).
std::string ViaDocument(const Json& doc, int tools, bool same_text = false) {
  Json list = Json::array();
  for (int i = 0; i < tools; ++i) {
    Json schema = {{"$ref", kDoc}};
    if (!same_text) schema["title"] = absl::StrCat("t", i);
    list.push_back({{"name", absl::StrCat("t", i)}, {"input_schema", schema}});
  }
  return Json{{"toolgate", "v1"}, {"tools", list}, {"documents", {{kDoc, doc}}}}
      .dump();
}

struct Document {
  std::string label;
  Json doc;
  // Its program is larger than a snapshot keeps resident: an identical
  // schema repeated by the next tool compiles again.
  bool dropped = true;
};

std::vector<Document> Documents() {
  Json any_of = Json::array();
  for (int i = 0; i < 100; ++i) {
    any_of.push_back({{"type", "string"}, {"const", "x"}, {"minimum", i}});
  }
  Json big_enum = Json::array();
  for (int i = 0; i < 3000; ++i) big_enum.push_back(absl::StrCat("v", i));
  Json chain = Json::object();
  for (int i = 0; i < 200; ++i) {
    chain[absl::StrCat("d", i)] = {
        {"allOf", {{{"$ref", absl::StrCat("#/$defs/d", i + 1)}}}}};
  }
  chain["d200"] = {{"type", "integer"}};
  Json unreferenced = Json::object();
  for (int i = 0; i < 2000; ++i) {
    unreferenced[absl::StrCat("d", i)] = {{"type", "integer"}};
  }
  Json patterns = Json::object();
  for (int i = 0; i < 2; ++i) {
    patterns[absl::StrCat("p", i)] = {
        {"type", "string"}, {"pattern", absl::StrCat("^\\p{L}{8}", i, "$")}};
  }
  return {
      {"wide anyOf", {{"anyOf", any_of}}},
      {"large enum", {{"enum", big_enum}}},
      {"deep allOf/$ref chain", {{"$defs", chain}, {"$ref", "#/$defs/d0"}}},
      {"large unreferenced $defs",
       {{"$defs", unreferenced}, {"type", "object"}},
       false},
      {"large patterns", {{"properties", patterns}}},
  };
}

SnapshotStoreOptions SmallBudget() {
  SnapshotStoreOptions options;
  options.compile.min_bytes = size_t{4} << 20;
  options.compile.times_manifest = 1;
  return options;
}

TEST(CompileBudget, DocumentMultipliedByToolsIsRefused) {
  for (const Document& d : Documents()) {
    for (bool same_text : {false, true}) {
      // An identical schema kept resident is shared, not compiled again.
      if (same_text && !d.dropped) continue;
      SCOPED_TRACE(d.label + (same_text ? ", identical schemas" : ""));
      SnapshotStore store(SmallBudget());
      // One tool's cost, then as many tools as take it past the budget.
      auto one = store.Create(ViaDocument(d.doc, 1), ManifestFormat::kAuto, "");
      ASSERT_TRUE(one.ok()) << one.status();
      const std::string many = ViaDocument(d.doc, 60, same_text);
      auto s = store.Create(many, ManifestFormat::kAuto, "");
      ASSERT_FALSE(s.ok());
      EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(std::string(s.status().message()),
                  HasSubstr("schema_too_complex: compiling the manifest's "
                            "schemas takes more than 4194304 bytes"));
      EXPECT_EQ(store.size(), 1u);
    }
  }
}

TEST(CompileBudget, WithinTheBudgetTheSameManifestsAreAccepted) {
  for (const Document& d : Documents()) {
    SCOPED_TRACE(d.label);
    SnapshotStore store;  // Default budget: 64 MiB.
    auto s = store.Create(ViaDocument(d.doc, 4), ManifestFormat::kAuto, "");
    EXPECT_TRUE(s.ok()) << s.status();
  }
}

// The budget follows the manifest's size above its floor, so a large
// manifest of ordinary schemas (40-60 units a byte) is never refused.
TEST(CompileBudget, ScalesWithTheManifest) {
  Json tools = Json::array();
  for (int i = 0; i < 400; ++i) {
    tools.push_back({{"name", absl::StrCat("t", i)},
                     {"input_schema",
                      {{"type", "object"},
                       {"properties",
                        {{"id",
                          {{"type", "string"},
                           {"pattern", absl::StrCat("^T", i, "-[0-9]{8}$")}}},
                         {"n", {{"type", "integer"}, {"minimum", 0}}}}},
                       {"required", {"id"}}}}});
  }
  const std::string manifest = tools.dump();
  SnapshotStoreOptions options;
  options.compile.min_bytes = 0;  // Only the size-relative part.
  SnapshotStore store(options);
  EXPECT_TRUE(store.Create(manifest, ManifestFormat::kAuto, "").ok());
  for (const EmbeddedManifest& e : EmbeddedExampleManifests()) {
    EXPECT_TRUE(store.Create(e.contents, ManifestFormat::kAuto, "").ok())
        << e.file;
  }
}

}  // namespace
}  // namespace toolgate
