// Heap that compiled snapshots retain, measured with glibc's mallinfo2
// (bytes in use by malloc), against Snapshot::compiled_bytes(), for the
// generated manifest of bench/memory/manifest_gen.h.
//
//   snapshot_memory [SNAPSHOTS] [TOOLS] [DISTINCT_PATTERNS] [POOL_BYTES]
//                   [new]
//
// Creates SNAPSHOTS manifests that differ only in their tool names (so
// their schemas are identical; with "new", each has patterns no other
// has, so every snapshot's schemas are new to the process), validates one valid
// and one invalid call for every tool (a regex builds its matching state on
// first use; a tool the snapshot does not keep resident is compiled into the
// SchemaPool of POOL_BYTES, default 64 MiB), and prints per snapshot the
// manifest bytes, the heap retained from before Create to after the calls
// without what the pool grew by (the pool is emptied, measured, and its budget
// restored), compiled_bytes(), with their ratios to the manifest bytes,
// and how many schemas are resident. The pool's own figures follow. The
// last line adds up all snapshots: shared schemas count once in the heap,
// and compiled_bytes() splits them between users.
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/memory/manifest_gen.h"
#include "core/snapshot/schema_pool.h"
#include "core/snapshot/snapshot.h"

namespace {

size_t HeapInUse() { return mallinfo2().uordblks; }

double Ratio(size_t a, size_t b) {
  return static_cast<double>(a) / static_cast<double>(b);
}

}  // namespace

int main(int argc, char** argv) {
  const int snapshots = argc > 1 ? std::atoi(argv[1]) : 4;
  toolgate::bench::ManifestGenOptions gen;
  if (argc > 2) gen.tools = std::strtoul(argv[2], nullptr, 10);
  if (argc > 3) gen.distinct_patterns = std::strtoul(argv[3], nullptr, 10);
  toolgate::SchemaPool& pool = toolgate::SchemaPool::Global();
  if (argc > 4) pool.SetMaxBytes(std::strtoul(argv[4], nullptr, 10));
  const size_t pool_budget = pool.max_bytes();
  const bool fresh = argc > 5 && std::string(argv[5]) == "new";
  toolgate::SnapshotStoreOptions options;
  options.limits.max_bytes = 1 << 24;
  toolgate::SnapshotStore store(options);
  const toolgate::Json valid = toolgate::Json::parse(R"({"id":"AB7-123"})");
  const toolgate::Json invalid = toolgate::Json::parse(R"({"id":"no"})");
  // Warm-up, unmeasured: one-time allocations (keyword tables, the
  // sharing tables, RE2's and glibc's own) belong to no snapshot.
  {
    toolgate::bench::ManifestGenOptions one;
    one.tools = 1;
    one.variant = "warmup";
    if (!store
             .Create(toolgate::bench::GenerateManifest(one),
                     toolgate::ManifestFormat::kMcp, "")
             .ok()) {
      return 1;
    }
  }
  std::vector<std::shared_ptr<const toolgate::Snapshot>> held;
  size_t heap_total = 0, manifest_total = 0;
  for (int i = 0; i < snapshots; ++i) {
    gen.variant = absl::StrCat("v", i);
    if (fresh) gen.pattern_base = 1000000 * static_cast<size_t>(i + 1);
    const std::string manifest = toolgate::bench::GenerateManifest(gen);
    const size_t before = HeapInUse();
    auto s = store.Create(manifest, toolgate::ManifestFormat::kMcp, "");
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.status().ToString().c_str());
      return 1;
    }
    for (const std::string& name : (*s)->tool_names()) {
      const toolgate::CompiledTool* tool = (*s)->FindTool(name);
      tool->input->IsValid(valid);
      tool->input->IsValid(invalid);
    }
    const size_t with_pool = HeapInUse() - before;
    const size_t pooled = pool.bytes(), pooled_entries = pool.entries();
    pool.SetMaxBytes(0);  // What the snapshot holds without the pool.
    const size_t retained = HeapInUse() - before;
    pool.SetMaxBytes(pool_budget);
    heap_total += retained;
    manifest_total += manifest.size();
    held.push_back(*s);
    std::printf(
        "snapshot %d: manifest %zu bytes, heap retained %zu (%.2fx), "
        "compiled_bytes %zu (%.2fx), %zu resident / %zu lazy schemas; "
        "pool after the calls %zu bytes counted, %zu entries, heap with "
        "it %zu\n",
        i, manifest.size(), retained, Ratio(retained, manifest.size()),
        (*s)->compiled_bytes(), Ratio((*s)->compiled_bytes(), manifest.size()),
        (*s)->resident_schemas(), (*s)->lazy_schemas(), pooled, pooled_entries,
        with_pool);
  }
  size_t accounted = 0;
  for (const auto& s : held) accounted += s->compiled_bytes();
  std::printf(
      "all %d: manifests %zu bytes, heap retained %zu (%.2fx), "
      "compiled_bytes summed %zu (%.2fx)\n",
      snapshots, manifest_total, heap_total, Ratio(heap_total, manifest_total),
      accounted, Ratio(accounted, manifest_total));
  return 0;
}
