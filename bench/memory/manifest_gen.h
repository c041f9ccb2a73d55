// A large, realistic-shaped MCP manifest for memory measurements: many
// small tools, each with a string property constrained by a `pattern`
// (the case where per-tool compiled regexes dominated a snapshot's size).
//
// Thread-safety: pure function.
#ifndef TOOLGATE_BENCH_MEMORY_MANIFEST_GEN_H_
#define TOOLGATE_BENCH_MEMORY_MANIFEST_GEN_H_

#include <cstddef>
#include <string>

namespace toolgate {
namespace bench {

struct ManifestGenOptions {
  size_t tools = 1500;
  // How many different patterns the tools cycle through (0: every tool has
  // its own). Real manifests repeat a few id, date and code shapes.
  size_t distinct_patterns = 0;
  // Prefix of every tool name: manifests that differ only in it are
  // different snapshots with identical schemas.
  std::string variant = "v1";
  // Added to every pattern's number: manifests with different bases share
  // no schema (a process's first manifest of all-new schemas, again).
  size_t pattern_base = 0;
};

// MCP `tools/list` JSON; with the defaults about 189 KB.
std::string GenerateManifest(const ManifestGenOptions& options);

}  // namespace bench
}  // namespace toolgate

#endif  // TOOLGATE_BENCH_MEMORY_MANIFEST_GEN_H_
