// Compile-time cost: Schema::Compile on the SchemaStore corpora and the
// worst-case schemas, and SnapshotStore::Create on the generated
// 1,500-tool manifest (bench/memory/manifest_gen.h). Compile is off the
// hot path; this shows what a manifest load costs.
//
//   bazel run -c opt //bench/schema:compile_time -- [CORPORA_DIR] [REPS]
//
// CORPORA_DIR defaults to ../shared/bench/jsonschema-benchmark/schemas
// beside the workspace. Each figure is the median of REPS (default 21)
// timed runs after one untimed warm-up (which also compiles the built-in
// metaschemas once per process). A snapshot is released before the next
// Create, so its schemas are compiled again each time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "bench/memory/manifest_gen.h"
#include "bench/schema/worst_case_schemas.h"
#include "core/json/strict_json.h"
#include "core/schema/schema.h"
#include "core/snapshot/snapshot.h"

namespace {

namespace fs = std::filesystem;
using toolgate::Json;

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// Median microseconds of `reps` runs of `fn` after one warm-up; -1 when
// `fn` fails.
double MedianMicros(int reps, const std::function<bool()>& fn) {
  if (!fn()) return -1;
  std::vector<double> us;
  for (int i = 0; i < reps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    if (!fn()) return -1;
    us.push_back(std::chrono::duration<double, std::micro>(
                     std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

void TimeSchema(const std::string& name, const std::string& text, int reps) {
  auto doc =
      toolgate::ParseStrictJson(text, toolgate::JsonLimits{1 << 24, 256});
  if (!doc.ok()) {
    std::printf("%-26s %8zu  not JSON\n", name.c_str(), text.size());
    return;
  }
  const auto first = toolgate::schema::Schema::Compile(*doc);
  if (!first.ok()) {
    std::printf("%-26s %8zu  refused: %.160s\n", name.c_str(), text.size(),
                std::string(first.status().message()).c_str());
    return;
  }
  const double us = MedianMicros(
      reps, [&] { return toolgate::schema::Schema::Compile(*doc).ok(); });
  std::printf("%-26s %8zu %10.1f\n", name.c_str(), text.size(), us);
}

void TimeManifest(size_t distinct_patterns, int reps) {
  toolgate::bench::ManifestGenOptions gen;
  gen.distinct_patterns = distinct_patterns;
  const std::string manifest = toolgate::bench::GenerateManifest(gen);
  toolgate::SnapshotStoreOptions options;
  options.limits.max_bytes = 1 << 24;
  toolgate::SnapshotStore store(options);
  int n = 0;
  const double us = MedianMicros(reps, [&] {
    // A fresh name each time; the previous snapshot is already released.
    auto s = store.Create(manifest, toolgate::ManifestFormat::kMcp,
                          "m" + std::to_string(n++));
    if (!s.ok()) std::printf("Create: %s\n", s.status().ToString().c_str());
    return s.ok();
  });
  std::printf("manifest 1500 tools, %s: %zu bytes, Create %.1f ms\n",
              distinct_patterns == 0
                  ? "every tool its own pattern"
                  : (std::to_string(distinct_patterns) + " patterns").c_str(),
              manifest.size(), us / 1000);
}

}  // namespace

int main(int argc, char** argv) {
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  const fs::path corpora =
      argc > 1 ? fs::path(argv[1])
               : fs::path(workspace ? workspace : ".") /
                     "../shared/bench/jsonschema-benchmark/schemas";
  const int reps = argc > 2 ? std::atoi(argv[2]) : 21;
  std::printf("%-26s %8s %10s\n", "schema", "bytes", "compile_us");
  std::vector<fs::path> dirs;
  if (fs::is_directory(corpora)) {
    for (const auto& entry : fs::directory_iterator(corpora)) {
      if (fs::exists(entry.path() / "schema.json")) dirs.push_back(entry);
    }
  }
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& dir : dirs) {
    TimeSchema(dir.filename().string(), Slurp(dir / "schema.json"), reps);
  }
  for (const auto& c : toolgate::bench::WorstCaseSchemas()) {
    TimeSchema("worst:" + c.name, c.schema, reps);
  }
  TimeManifest(0, std::max(3, reps / 4));
  TimeManifest(20, std::max(3, reps / 4));
  return 0;
}
