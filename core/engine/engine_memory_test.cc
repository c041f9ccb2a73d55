// Regression tests: state a request leaves behind or reads back is bounded
// (ListSnapshots pages, the compiled result-schema cache).
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/engine/engine.h"
#include "core/engine/limits_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;
using testutil::AllPages;
using testutil::ManyTools;

std::string OneTool(int i) {
  return Json::array({{{"name", absl::StrCat("t", i)}, {"input_schema", true}}})
      .dump();
}

TEST(EngineListSnapshots, PagesFollowIdOrderWithOpaqueTokens) {
  Engine engine;
  std::set<std::string> created;
  for (int i = 0; i < 250; ++i) {
    auto s = engine.CreateSnapshot(OneTool(i), ManifestFormat::kAuto, "");
    ASSERT_TRUE(s.ok());
    created.insert((*s)->id());
  }
  int pages = 0;
  std::vector<std::string> ids = AllPages(engine, 0, &pages);
  EXPECT_EQ(pages, 3);  // Default page size: 100.
  EXPECT_EQ(ids, std::vector<std::string>(created.begin(), created.end()));
  ids = AllPages(engine, 7, &pages);
  EXPECT_EQ(pages, 36);
  EXPECT_EQ(ids.size(), 250u);

  auto first = engine.ListSnapshots(100, "");
  ASSERT_TRUE(first.ok());
  EXPECT_THAT(first->next_page_token, Not(HasSubstr("sha256")));
  // Past the maximum page size is the maximum, not an error.
  auto all = engine.ListSnapshots(1000000, "");
  ASSERT_TRUE(all.ok());
  EXPECT_THAT(all->snapshots, SizeIs(250));
  EXPECT_TRUE(all->next_page_token.empty());

  EXPECT_EQ(engine.ListSnapshots(-1, "").status().code(),
            absl::StatusCode::kInvalidArgument);
  for (const char* bad : {"garbage!", "c2hhMjU2OmFiYw", "x"}) {
    EXPECT_EQ(engine.ListSnapshots(10, bad).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
}

TEST(EngineListSnapshots, TokensStayValidWhileSnapshotsAreAdded) {
  Engine engine;
  for (int i = 0; i < 30; ++i) {
    ASSERT_TRUE(
        engine.CreateSnapshot(OneTool(i), ManifestFormat::kAuto, "").ok());
  }
  auto first = engine.ListSnapshots(10, "");
  ASSERT_TRUE(first.ok());
  std::set<std::string> seen;
  for (const auto& s : first->snapshots) seen.insert(s->id());
  // New snapshots land anywhere in id order, before and after the token.
  for (int i = 30; i < 60; ++i) {
    ASSERT_TRUE(
        engine.CreateSnapshot(OneTool(i), ManifestFormat::kAuto, "").ok());
  }
  std::string token = first->next_page_token;
  std::string last = first->snapshots.back()->id();
  while (!token.empty()) {
    auto page = engine.ListSnapshots(10, token);
    ASSERT_TRUE(page.ok()) << page.status();
    for (const auto& s : page->snapshots) {
      EXPECT_GT(s->id(), last);  // Never repeats, never goes back.
      EXPECT_TRUE(seen.insert(s->id()).second);
      last = s->id();
    }
    token = page->next_page_token;
  }
  // Every snapshot held before the first page was read is listed.
  auto all = engine.ListSnapshots(1000, "");
  ASSERT_TRUE(all.ok());
  size_t listed_after_first = 0;
  for (const auto& s : all->snapshots)
    listed_after_first += seen.count(s->id());
  EXPECT_GE(listed_after_first, 30u);
}

TEST(EngineListSnapshots, PagesAreBoundedByBytes) {
  EngineOptions options;
  options.snapshot_page_bytes = 40 * 1024;
  Engine engine(options);
  // Each snapshot lists 100 names of ~110 bytes: ~11 KB per entry.
  for (int i = 0; i < 20; ++i) {
    auto s = engine.CreateSnapshot(
        ManyTools(100, absl::StrCat(std::string(100, 'n'), i)),
        ManifestFormat::kAuto, "");
    ASSERT_TRUE(s.ok()) << s.status();
  }
  auto page = engine.ListSnapshots(100, "");
  ASSERT_TRUE(page.ok());
  EXPECT_THAT(page->snapshots, SizeIs(3));
  EXPECT_FALSE(page->next_page_token.empty());
  int pages = 0;
  EXPECT_THAT(AllPages(engine, 100, &pages), SizeIs(20));
  EXPECT_EQ(pages, 7);
  // A single entry over the budget still makes a page of one.
  options.snapshot_page_bytes = 1;
  Engine tiny(options);
  ASSERT_TRUE(
      tiny.CreateSnapshot(ManyTools(3), ManifestFormat::kAuto, "").ok());
  ASSERT_TRUE(
      tiny.CreateSnapshot(ManyTools(4), ManifestFormat::kAuto, "").ok());
  EXPECT_THAT(AllPages(tiny, 100, &pages), SizeIs(2));
  EXPECT_EQ(pages, 2);
}

TEST(EngineResultSchemaCache, StaysWithinItsByteBudget) {
  EngineOptions options;
  options.result_schema_cache_bytes = 4 << 20;
  Engine engine(options);
  const std::string envelope = "```json\n{\"verdict\":\"PASS\"}\n```";
  for (int i = 0; i < 300; ++i) {
    // Distinct schemas of ~40 KB compiled each.
    Json props = Json::object();
    for (int k = 0; k < 40; ++k) {
      props[absl::StrCat("p", k)] = {{"type", "integer"}, {"minimum", i}};
    }
    VerdictRequest r;
    r.envelope = envelope;
    r.result_schema = Json{{"type", "object"}, {"properties", props}}.dump();
    auto out = engine.ExtractVerdict(r);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_LE(engine.result_schema_cache().bytes(), 4u << 20) << i;
  }
  EXPECT_GT(engine.result_schema_cache().entries(), 0u);
  EXPECT_LT(engine.result_schema_cache().entries(), 300u);
}

TEST(EngineResultSchemaCache, ReusesAndEvictsLeastRecentlyUsed) {
  EngineOptions options;
  Engine sizing(options);
  VerdictRequest r;
  r.envelope = "```json\n{}\n```";
  r.result_schema = R"({"type":"object","title":"a"})";
  ASSERT_TRUE(sizing.ExtractVerdict(r).ok());
  const size_t one = sizing.result_schema_cache().bytes();
  ASSERT_GT(one, 0u);
  options.result_schema_cache_bytes = 2 * one + one / 2;  // Room for two.
  Engine engine(options);
  auto verdict = [&](const std::string& title) {
    r.result_schema =
        absl::StrCat(R"({"type":"object","title":")", title, "\"}");
    ASSERT_TRUE(engine.ExtractVerdict(r).ok());
  };
  verdict("a");
  verdict("b");
  verdict("a");  // A hit: "a" is now the most recently used.
  EXPECT_EQ(engine.result_schema_cache().entries(), 2u);
  verdict("c");  // Evicts "b".
  EXPECT_EQ(engine.result_schema_cache().entries(), 2u);
  const size_t before = engine.result_schema_cache().bytes();
  verdict("a");  // Still cached: nothing changes.
  EXPECT_EQ(engine.result_schema_cache().bytes(), before);
  EXPECT_EQ(engine.result_schema_cache().entries(), 2u);

  options.result_schema_cache_bytes = 0;  // No cache: still answers.
  Engine uncached(options);
  r.result_schema = R"({"type":"object"})";
  EXPECT_TRUE(uncached.ExtractVerdict(r).ok());
  EXPECT_EQ(uncached.result_schema_cache().entries(), 0u);
}

}  // namespace
}  // namespace toolgate
