// Google Benchmark of the schema engine: realistic tool-call schemas
// (valid and invalid arguments) and, when present, the SchemaStore corpora
// in $TOOLGATE_BENCH_CORPORA (default: ../shared/bench/jsonschema-benchmark/
// schemas beside the repo). Reports ns per instance for parse+validate and
// validate-only. Not a test: nothing here asserts timing.
//
//   bazel run -c opt //bench/schema:schema_benchmark
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/json/strict_json.h"
#include "core/schema/schema.h"

namespace toolgate {
namespace schema {
namespace {

namespace fs = std::filesystem;

struct Workload {
  std::string name;
  std::shared_ptr<const Schema> schema;
  std::vector<std::string> lines;
  std::vector<Json> parsed;
};

constexpr char kToolSchema[] = R"({
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "maxLength": 4096,
             "pattern": "^(/[^/\\u0000]+)+$"},
    "mode": {"enum": ["read", "write", "append"]},
    "content": {"type": "string", "maxLength": 100000},
    "encoding": {"type": "string", "default": "utf-8"},
    "create_dirs": {"type": "boolean"},
    "permissions": {"type": "integer", "minimum": 0, "maximum": 511},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 16,
             "uniqueItems": true},
    "options": {"type": "object",
                "properties": {"timeout_ms": {"type": "integer", "minimum": 1},
                               "retries": {"type": "integer", "maximum": 5}},
                "additionalProperties": false}
  },
  "required": ["path", "mode"],
  "additionalProperties": false
})";

const std::vector<std::string>& ToolCalls(bool valid) {
  static const std::vector<std::string> kValid = {
      R"({"path":"/tmp/report.txt","mode":"write","content":"hello","create_dirs":true})",
      R"({"path":"/var/log/app.log","mode":"read"})",
      R"({"path":"/srv/data/x.json","mode":"append","content":"{}","tags":["a","b","c"],"options":{"timeout_ms":500,"retries":2}})",
      R"({"path":"/home/u/notes.md","mode":"write","content":"# Notes\n","permissions":420,"encoding":"utf-8"})",
  };
  static const std::vector<std::string> kInvalid = {
      R"({"path":"relative.txt","mode":"write"})",
      R"({"path":"/tmp/x","mode":"delete"})",
      R"({"path":"/tmp/x","mode":"read","permissions":"0644"})",
      R"({"path":"/tmp/x","mode":"read","tags":["a","a"]})",
      R"({"mode":"read","extra":1})",
  };
  return valid ? kValid : kInvalid;
}

Workload Make(const std::string& name, const std::string& schema_text,
              std::vector<std::string> lines) {
  Workload w;
  w.name = name;
  auto schema_json = ParseStrictJson(schema_text, JsonLimits{1 << 24, 256});
  if (!schema_json.ok()) return w;
  auto schema = Schema::Compile(*schema_json);
  if (!schema.ok()) return w;
  w.schema = *schema;
  w.lines = std::move(lines);
  for (const std::string& l : w.lines) {
    auto j = ParseStrictJson(l, JsonLimits{1 << 24, 256});
    w.parsed.push_back(j.ok() ? *j : Json());
  }
  return w;
}

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

void ParseValidate(benchmark::State& state, const Workload* w) {
  size_t valid = 0;
  for (auto _ : state) {
    for (const std::string& l : w->lines) {
      auto j = ParseStrictJson(l, JsonLimits{1 << 24, 256});
      valid += j.ok() && w->schema->IsValid(*j);
    }
  }
  benchmark::DoNotOptimize(valid);
  state.SetItemsProcessed(state.iterations() * w->lines.size());
  state.counters["ns_per_instance"] = benchmark::Counter(
      static_cast<double>(state.iterations() * w->lines.size()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void ValidateOnly(benchmark::State& state, const Workload* w) {
  size_t valid = 0;
  for (auto _ : state) {
    for (const Json& j : w->parsed) valid += w->schema->IsValid(j);
  }
  benchmark::DoNotOptimize(valid);
  state.SetItemsProcessed(state.iterations() * w->parsed.size());
  state.counters["ns_per_instance"] = benchmark::Counter(
      static_cast<double>(state.iterations() * w->parsed.size()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void ValidateAllErrors(benchmark::State& state, const Workload* w) {
  for (auto _ : state) {
    for (const Json& j : w->parsed) {
      std::vector<SchemaViolation> out;
      benchmark::DoNotOptimize(
          w->schema->Validate(j, ValidationMode::kAllErrors, 20, &out));
    }
  }
  state.SetItemsProcessed(state.iterations() * w->parsed.size());
}

std::vector<Workload>* Workloads() {
  static auto* all = new std::vector<Workload>;
  return all;
}

void Register() {
  auto* all = Workloads();
  all->reserve(64);  // Benchmarks keep pointers into this vector.
  all->push_back(Make("tool_call/valid", kToolSchema, ToolCalls(true)));
  all->push_back(Make("tool_call/invalid", kToolSchema, ToolCalls(false)));
  const char* env = std::getenv("TOOLGATE_BENCH_CORPORA");
  fs::path dir = env ? fs::path(env) : fs::path();
  if (dir.empty()) {
    std::error_code ec;
    for (fs::path p = fs::canonical("bench/schema/BUILD", ec); !ec && p.has_parent_path() && p != p.parent_path(); p = p.parent_path()) {
      if (fs::is_directory(p / "shared/bench/jsonschema-benchmark/schemas")) {
        dir = p / "shared/bench/jsonschema-benchmark/schemas";
        break;
      }
    }
  }
  if (!dir.empty() && fs::is_directory(dir)) {
    std::vector<fs::path> corpora;
    for (const auto& e : fs::directory_iterator(dir)) corpora.push_back(e.path());
    std::sort(corpora.begin(), corpora.end());
    for (const fs::path& c : corpora) {
      if (all->size() == all->capacity()) break;
      std::vector<std::string> lines;
      std::istringstream in(Slurp(c / "instances.jsonl"));
      for (std::string l; std::getline(in, l);) {
        if (!l.empty()) lines.push_back(l);
      }
      all->push_back(Make("corpus/" + c.filename().string(),
                          Slurp(c / "schema.json"), std::move(lines)));
    }
  }
  for (const Workload& w : *all) {
    if (!w.schema) continue;
    benchmark::RegisterBenchmark((w.name + "/parse+validate").c_str(), ParseValidate, &w);
    benchmark::RegisterBenchmark((w.name + "/validate").c_str(), ValidateOnly, &w);
    if (w.name.rfind("tool_call", 0) == 0) {
      benchmark::RegisterBenchmark((w.name + "/validate_all_errors").c_str(),
                                   ValidateAllErrors, &w);
    }
  }
}

}  // namespace
}  // namespace schema
}  // namespace toolgate

int main(int argc, char** argv) {
  toolgate::schema::Register();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
