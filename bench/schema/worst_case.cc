// What the worst schemas toolgate accepts cost against small instances:
// CPU time and work units (Schema::EvaluationSteps) per call, with the
// default CompileOptions. Each case is built to defeat one bound: fan-out
// that multiplies across instance depth (which no compile-time bound can
// see), in-place fan-out just under max_fanout, and keywords whose cost
// per evaluation grows with the schema (enum, required, patternProperties).
//
//   worst_case [REPEATS [CASE]]
//
// Prints one line per case: instance bytes, steps, and the median thread
// CPU time of IsValid and of Validate (all errors, at most 20).
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/schema/worst_case_schemas.h"
#include "core/json/strict_json.h"
#include "core/schema/schema.h"

namespace {

using toolgate::Json;
using toolgate::schema::Schema;

double MedianMs(int repeats, const std::function<void()>& f) {
  std::vector<double> ms;
  for (int r = 0; r < repeats; ++r) {
    timespec t0, t1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    f();
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    ms.push_back((t1.tv_sec - t0.tv_sec) * 1e3 +
                 (t1.tv_nsec - t0.tv_nsec) / 1e6);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 9;
  const std::string only = argc > 2 ? argv[2] : "";
  std::printf("%-28s %8s %10s %10s %12s\n", "case", "bytes", "steps",
              "IsValid_ms", "Validate_ms");
  for (const auto& c : toolgate::bench::WorstCaseSchemas()) {
    if (!only.empty() && c.name != only) continue;
    auto schema = Schema::Compile(Json::parse(c.schema));
    if (!schema.ok()) {
      std::printf("%-28s refused: %s\n", c.name.c_str(),
                  std::string(schema.status().message()).c_str());
      continue;
    }
    const Json instance = Json::parse(c.instance);
    const uint64_t steps = (*schema)->EvaluationSteps(instance);
    const double valid_ms =
        MedianMs(repeats, [&] { (*schema)->IsValid(instance); });
    const double all_ms = MedianMs(repeats, [&] {
      std::vector<toolgate::schema::SchemaViolation> out;
      (*schema)->Validate(
          instance, toolgate::schema::ValidationMode::kAllErrors, 20, &out);
    });
    std::printf("%-28s %8zu %10llu %10.2f %12.2f\n", c.name.c_str(),
                c.instance.size(), static_cast<unsigned long long>(steps),
                valid_ms, all_ms);
  }
  return 0;
}
