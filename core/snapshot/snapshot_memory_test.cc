// What a compiled snapshot costs in memory, on the manifest that exposed
// the problem: 1,500 tools with a `pattern` each, ~189 KB, which retained
// ~9 MB (48x its bytes) per snapshot before schemas and regexes were
// shared and programs past a budget compiled on use (bench/README.md,
// "Snapshot memory").
#include <malloc.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/config.h"
#include "bench/memory/manifest_gen.h"
#include "core/snapshot/schema_pool.h"
#include "core/snapshot/snapshot.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

std::string Generated(const std::string& variant, size_t patterns = 0,
                      size_t pattern_base = 0) {
  bench::ManifestGenOptions options;
  options.variant = variant;
  options.distinct_patterns = patterns;
  options.pattern_base = pattern_base;
  return bench::GenerateManifest(options);
}

// Empties the process-wide pool of programs compiled on use (what lazy
// tools compiled goes; SchemaPool bounds it, not the snapshot), restoring
// its budget when done.
class EmptyPool {
 public:
  EmptyPool() : budget_(SchemaPool::Global().max_bytes()) {
    SchemaPool::Global().SetMaxBytes(0);
  }
  ~EmptyPool() { SchemaPool::Global().SetMaxBytes(budget_); }

 private:
  const size_t budget_;
};

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

// Unmeasured: a snapshot of all-new schemas, exercised and released, so
// that one-time growth (the sharing tables, RE2's and malloc's own) is not
// counted against the snapshot measured next.
void WarmUp(size_t pattern_base) {
  SnapshotStore store(LargeManifests());
  auto s =
      store.Create(Generated("w", 0, pattern_base), ManifestFormat::kMcp, "");
  ASSERT_TRUE(s.ok()) << s.status();
  Exercise(**s);
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
  // Shared, not copied: a resident tool's compiled schema (the first, in
  // name order) is the same object in every variant.
  EXPECT_GT(held[0]->resident_schemas(), 0u);
  EXPECT_EQ(held[0]->FindTool("a0_tool_0")->input,
            held[2]->FindTool("a2_tool_0")->input);
}

// The manifest of the finding, every schema new to the process: most
// programs are dropped after load and compiled on use, so the snapshot
// itself stays within 5x, by compiled_bytes() and by the heap it retains
// once what its calls compiled into the pool is released.
TEST(SnapshotMemoryTest, AllDistinctManifestCostsAtMostFiveTimesItsBytes) {
  SnapshotStore store(LargeManifests());
  WarmUp(100000);
  const std::string m = Generated("e0", 0, 200000);
  { EmptyPool earlier_tests; }
  const size_t before = mallinfo2().uordblks;
  size_t heap = 0;
  std::shared_ptr<const Snapshot> s;
  {
    auto created = store.Create(m, ManifestFormat::kMcp, "");
    ASSERT_TRUE(created.ok()) << created.status();
    s = *created;
    Exercise(*s);  // Every lazy tool compiled, pooled, evicted or kept.
    EmptyPool drop;
    heap = mallinfo2().uordblks - before;
  }
  std::printf("manifest %zu bytes: heap %zu, compiled_bytes %zu, %zu lazy\n",
              m.size(), heap, s->compiled_bytes(), s->lazy_schemas());
  EXPECT_GT(s->lazy_schemas(), 1000u);
  EXPECT_LE(s->compiled_bytes(), 5 * m.size());
#if defined(ABSL_HAVE_ADDRESS_SANITIZER) || defined(ABSL_HAVE_THREAD_SANITIZER)
  GTEST_SKIP() << "a sanitizer's allocator does not report to mallinfo2";
#endif
  EXPECT_LE(heap, 5 * m.size());
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
#if defined(ABSL_HAVE_ADDRESS_SANITIZER) || defined(ABSL_HAVE_THREAD_SANITIZER)
  GTEST_SKIP() << "a sanitizer's allocator does not report to mallinfo2";
#endif
  SnapshotStore store(LargeManifests());
  WarmUp(300000);
  // Schemas no live snapshot has.
  const std::string m = Generated("b0", 0, 400000);
  { EmptyPool earlier_tests; }
  const size_t before = mallinfo2().uordblks;
  auto s = store.Create(m, ManifestFormat::kMcp, "");
  ASSERT_TRUE(s.ok()) << s.status();
  size_t heap = 0;
  {
    EmptyPool drop;  // The pool is bounded on its own: not the snapshot's.
    Exercise(**s);
    heap = mallinfo2().uordblks - before;
  }
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
    schema = (*a)->FindTool("c0_tool_0")->input;  // Resident: first.
    EXPECT_EQ(schema.lock(), (*b)->FindTool("c1_tool_0")->input);
  }
  // The sharing tables hold no strong reference.
  EXPECT_TRUE(schema.expired());
}

}  // namespace
}  // namespace toolgate
