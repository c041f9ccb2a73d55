// What a compiled snapshot costs in memory, on the manifest that exposed
// the problem: 1,500 tools with a `pattern` each, ~189 KB, which retained
// ~9 MB (48x its bytes) per snapshot before schemas and regexes were
// shared (bench/README.md, "Snapshot memory").
#include <malloc.h>

#include <memory>
#include <string>
#include <vector>

#include "bench/memory/manifest_gen.h"
#include "core/snapshot/snapshot.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

std::string Generated(const std::string& variant, size_t patterns = 0) {
  bench::ManifestGenOptions options;
  options.variant = variant;
  options.distinct_patterns = patterns;
  return bench::GenerateManifest(options);
}

SnapshotStoreOptions LargeManifests() {
  SnapshotStoreOptions options;
  options.limits.max_bytes = 1 << 20;
  return options;
}

size_t Accounted(const std::vector<std::shared_ptr<const Snapshot>>& all) {
  size_t n = 0;
  for (const auto& s : all) n += s->compiled_bytes();
  return n;
}

// Validates one valid and one invalid call per tool: a regex builds its
// matching state on first use, and a snapshot in service has used them.
void Exercise(const Snapshot& s) {
  const Json valid = Json::parse(R"({"id":"AB7-123"})");
  const Json invalid = Json::parse(R"({"id":"no"})");
  for (const std::string& name : s.tool_names()) {
    const CompiledTool* tool = s.FindTool(name);
    ASSERT_NE(tool, nullptr);
    EXPECT_FALSE(tool->input->IsValid(invalid));
    tool->input->IsValid(valid);
  }
}

TEST(SnapshotMemoryTest, GeneratedManifestIsTheOneMeasured) {
  const std::string m = Generated("v0");
  EXPECT_GE(m.size(), 185000u);
  EXPECT_LE(m.size(), 195000u);
  auto s = SnapshotStore(LargeManifests()).Create(m, ManifestFormat::kMcp, "");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)->tool_names().size(), 1500u);
}

// Each further manifest whose schemas are already compiled (the same tools
// renamed, re-versioned, re-described) adds at most 5x its bytes, by
// compiled_bytes(): the sum over live snapshots before and after it.
TEST(SnapshotMemoryTest, SimilarManifestCostsAtMostFiveTimesItsBytes) {
  SnapshotStore store(LargeManifests());
  std::vector<std::shared_ptr<const Snapshot>> held;
  size_t manifest_bytes = 0;
  for (const char* variant : {"a0", "a1", "a2"}) {
    const std::string m = Generated(variant);
    manifest_bytes = m.size();
    const size_t before = Accounted(held);
    auto s = store.Create(m, ManifestFormat::kMcp, variant);
    ASSERT_TRUE(s.ok()) << s.status();
    Exercise(**s);
    held.push_back(*s);
    if (held.size() == 1) continue;
    const size_t added = Accounted(held) - before;
    EXPECT_LE(added, 5 * manifest_bytes) << variant;
  }
  // Shared, not copied: every variant's tool uses the same compiled schema.
  EXPECT_EQ(held[0]->FindTool("a0_tool_7")->input,
            held[2]->FindTool("a2_tool_7")->input);
}

// Tools of a real manifest repeat a few id, date and code shapes: with 20
// patterns among the 1,500 tools, the first snapshot is within 5x too.
TEST(SnapshotMemoryTest, ManifestRepeatingPatternsCostsAtMostFiveTimes) {
  SnapshotStore store(LargeManifests());
  const std::string m = Generated("d0", 20);
  auto s = store.Create(m, ManifestFormat::kMcp, "");
  ASSERT_TRUE(s.ok()) << s.status();
  Exercise(**s);
  EXPECT_LE((*s)->compiled_bytes(), 5 * m.size());
}

// compiled_bytes() is what a byte-bounded store will sum: it must not
// undercount what the heap holds, nor overcount it much.
TEST(SnapshotMemoryTest, CompiledBytesTracksTheHeap) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer's allocator does not report to mallinfo2";
#endif
  SnapshotStore store(LargeManifests());
  const std::string m = Generated("b0");  // Schemas no live snapshot has.
  const size_t before = mallinfo2().uordblks;
  auto s = store.Create(m, ManifestFormat::kMcp, "");
  ASSERT_TRUE(s.ok()) << s.status();
  Exercise(**s);
  const size_t heap = mallinfo2().uordblks - before;
  EXPECT_GE((*s)->compiled_bytes(), heap * 95 / 100);
  EXPECT_LE((*s)->compiled_bytes(), heap * 135 / 100);
}

TEST(SnapshotMemoryTest, ReleasedSnapshotsFreeWhatTheyShared) {
  std::weak_ptr<const schema::Schema> schema;
  {
    SnapshotStore store(LargeManifests());
    auto a = store.Create(Generated("c0"), ManifestFormat::kMcp, "");
    auto b = store.Create(Generated("c1"), ManifestFormat::kMcp, "");
    ASSERT_TRUE(a.ok() && b.ok());
    schema = (*a)->FindTool("c0_tool_3")->input;
    EXPECT_EQ(schema.lock(), (*b)->FindTool("c1_tool_3")->input);
  }
  // The sharing tables hold no strong reference.
  EXPECT_TRUE(schema.expired());
}

}  // namespace
}  // namespace toolgate
