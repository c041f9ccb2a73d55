// Compile-time cost: Schema::Compile on the SchemaStore corpora and the
// worst-case schemas, and SnapshotStore::Create on the generated
// 1,500-tool manifest (bench/memory/manifest_gen.h). Compile is off the
// hot path; this shows what a manifest load costs.
//
//   bazel run -c opt //bench/schema:compile_time -- [CORPORA_DIR] [REPS]
//
// CORPORA_DIR defaults to ../shared/bench/jsonschema-benchmark/schemas
// beside the workspace. Each figure is the median of REPS (default 21)
// timed runs, in thread CPU time (neighbours on a shared machine move it
// less than wall time), after one untimed warm-up (which also compiles the
// built-in metaschemas once per process). `meta_us` is the part of
// `compile_us` that validating the document against its metaschema costs
// (IsValid of the document against the compiled metaschema). A snapshot is
// released before the next Create, so its schemas are compiled again each
// time.
#include <time.h>

#include <algorithm>
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

double ThreadCpuMicros() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

// Median thread CPU microseconds of `reps` runs of `fn` after one warm-up;
// -1 when `fn` fails.
double MedianMicros(int reps, const std::function<bool()>& fn) {
  if (!fn()) return -1;
  std::vector<double> us;
  for (int i = 0; i < reps; ++i) {
    const double start = ThreadCpuMicros();
    if (!fn()) return -1;
    us.push_back(ThreadCpuMicros() - start);
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

const toolgate::schema::Schema& Metaschema(toolgate::schema::Dialect d) {
  static const auto* const kMeta2020 =
      new std::shared_ptr<const toolgate::schema::Schema>(
          *toolgate::schema::Schema::Compile(
              Json{{"$ref", "https://json-schema.org/draft/2020-12/schema"}}));
  static const auto* const kMeta7 =
      new std::shared_ptr<const toolgate::schema::Schema>(
          *toolgate::schema::Schema::Compile(
              Json{{"$ref", "http://json-schema.org/draft-07/schema#"}}));
  return d == toolgate::schema::Dialect::kDraft7 ? **kMeta7 : **kMeta2020;
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
  const toolgate::schema::Schema& meta = Metaschema((*first)->dialect());
  const double meta_us = MedianMicros(reps, [&] { return meta.IsValid(*doc); });
  std::printf("%-26s %8zu %10.1f %8.1f\n", name.c_str(), text.size(), us,
              meta_us);
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
  // The metaschema's share: every tool's input schema validated against
  // it (an upper bound: Create compiles identical schemas once).
  const Json parsed = Json::parse(manifest);
  const toolgate::schema::Schema& meta =
      Metaschema(toolgate::schema::Dialect::kDraft2020_12);
  const double meta_us = MedianMicros(reps, [&] {
    bool ok = true;
    for (const Json& tool : parsed["tools"]) {
      ok &= meta.IsValid(tool["inputSchema"]);
    }
    return ok;
  });
  std::printf(
      "manifest 1500 tools, %s: %zu bytes, Create %.1f ms CPU, of which "
      "metaschema checks at most %.2f ms\n",
      distinct_patterns == 0
          ? "every tool its own pattern"
          : (std::to_string(distinct_patterns) + " patterns").c_str(),
      manifest.size(), us / 1000, meta_us / 1000);
}

}  // namespace

int main(int argc, char** argv) {
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  const fs::path corpora =
      argc > 1 ? fs::path(argv[1])
               : fs::path(workspace ? workspace : ".") /
                     "../shared/bench/jsonschema-benchmark/schemas";
  const int reps = argc > 2 ? std::atoi(argv[2]) : 21;
  // The first compilation of each dialect also compiles its metaschema.
  for (const char* first :
       {R"({"type":"string"})", R"({"$schema":"http://json-schema.org/)"
                                R"(draft-07/schema#","type":"string"})"}) {
    const double start = ThreadCpuMicros();
    const bool ok = toolgate::schema::Schema::Compile(Json::parse(first)).ok();
    std::printf("first compile in the process %s: %.1f us%s\n", first,
                ThreadCpuMicros() - start, ok ? "" : " (refused)");
  }
  std::printf(
      "compiled metaschemas held per process: %zu bytes (2020-12), "
      "%zu bytes (draft-07)\n",
      Metaschema(toolgate::schema::Dialect::kDraft2020_12).compiled_bytes(),
      Metaschema(toolgate::schema::Dialect::kDraft7).compiled_bytes());
  std::printf("%-26s %8s %10s %8s\n", "schema", "bytes", "compile_us",
              "meta_us");
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
