// What compiling on use costs: per call of a tool of bench/memory's
// generated manifest (1,500 tools, each its own pattern), validated
// resident, lazy on first use (its program compiled into the pool), lazy
// with the program pooled, and lazy with no pool (compiled every call).
//
//   lazy_cost [ROUNDS]
//
// Each figure is the process's CPU time (single-threaded, so neighbours on
// a shared machine matter less than for wall time) over all 1,500 tools
// divided by the calls, one IsValid of a valid instance per tool per round.
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "bench/memory/manifest_gen.h"
#include "core/snapshot/schema_pool.h"
#include "core/snapshot/snapshot.h"

namespace {

double CpuNanos() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// Nanoseconds per call of `rounds` passes over every tool of `s`.
double PerCall(const toolgate::Snapshot& s, int rounds) {
  const toolgate::Json valid = toolgate::Json::parse(R"({"id":"AB7-123"})");
  size_t calls = 0, accepted = 0;
  const double start = CpuNanos();
  for (int r = 0; r < rounds; ++r) {
    for (const std::string& name : s.tool_names()) {
      accepted += s.FindTool(name)->input->IsValid(valid) ? 1 : 0;
      ++calls;
    }
  }
  const double ns = CpuNanos() - start;
  if (accepted > static_cast<size_t>(rounds)) std::abort();  // Only tool 7.
  return ns / static_cast<double>(calls);
}

std::shared_ptr<const toolgate::Snapshot> Load(const std::string& manifest,
                                               size_t min_program_bytes) {
  toolgate::SnapshotStoreOptions options;
  options.limits.max_bytes = 1 << 24;
  options.resident.min_program_bytes = min_program_bytes;
  auto s = toolgate::SnapshotStore(options).Create(
      manifest, toolgate::ManifestFormat::kMcp, "");
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.status().ToString().c_str());
    std::exit(1);
  }
  return *s;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  toolgate::bench::ManifestGenOptions gen;
  gen.pattern_base = 7000000;
  const std::string manifest = toolgate::bench::GenerateManifest(gen);
  toolgate::SchemaPool& pool = toolgate::SchemaPool::Global();
  const size_t budget = pool.max_bytes();
  {
    auto resident = Load(manifest, size_t{1} << 40);
    std::printf("resident (%zu lazy): %.0f ns/call\n", resident->lazy_schemas(),
                PerCall(*resident, rounds));
  }
  auto lazy = Load(manifest, toolgate::ResidentBudget().min_program_bytes);
  pool.SetMaxBytes(0);
  pool.SetMaxBytes(budget);
  std::printf("lazy (%zu lazy), first use: %.0f ns/call\n",
              lazy->lazy_schemas(), PerCall(*lazy, 1));
  std::printf("lazy, pooled: %.0f ns/call\n", PerCall(*lazy, rounds));
  pool.SetMaxBytes(0);
  std::printf("lazy, no pool: %.0f ns/call\n", PerCall(*lazy, 2));
  return 0;
}
