// Bytes-to-verdict driver: how long toolgate takes from an instance's raw
// bytes to valid/invalid (ParseStrictJson + IsValid), and validate-only
// (IsValid on pre-parsed instances), in ns per instance.
//
//   bytes_to_verdict SCHEMA.json INSTANCES.jsonl [PASSES]
//
// Prints one JSON line: {"instances","valid","passes","parse_validate_ns",
// "validate_ns","max_steps"}. One untimed warm-up pass precedes the timed
// ones; max_steps (the most evaluation steps any instance needed, against
// CompileOptions::max_evaluation_steps) is counted after them, untimed.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/json/strict_json.h"
#include "core/schema/schema.h"

namespace {

std::string Slurp(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

double NsPerInstance(std::chrono::steady_clock::duration d, size_t n) {
  return std::chrono::duration<double, std::nano>(d).count() /
         static_cast<double>(n);
}

}  // namespace

int main(int argc, char** argv) {
  using toolgate::Json;
  if (argc < 3) {
    std::cerr << "usage: bytes_to_verdict SCHEMA.json INSTANCES.jsonl [PASSES]\n";
    return 2;
  }
  const int passes = argc > 3 ? std::atoi(argv[3]) : 10;
  const toolgate::JsonLimits limits{1 << 24, 256};
  auto schema_json = toolgate::ParseStrictJson(Slurp(argv[1]), limits);
  if (!schema_json.ok()) {
    std::cerr << "schema: " << schema_json.status() << "\n";
    return 2;
  }
  auto schema = toolgate::schema::Schema::Compile(*schema_json);
  if (!schema.ok()) {
    std::cerr << "compile: " << schema.status() << "\n";
    return 2;
  }
  std::vector<std::string> lines;
  {
    std::istringstream in(Slurp(argv[2]));
    for (std::string l; std::getline(in, l);) {
      if (!l.empty()) lines.push_back(l);
    }
  }
  std::vector<Json> parsed;
  for (const std::string& l : lines) {
    auto j = toolgate::ParseStrictJson(l, limits);
    parsed.push_back(j.ok() ? *j : Json());
  }
  size_t valid = 0;
  auto run_parse_validate = [&] {
    size_t v = 0;
    for (const std::string& l : lines) {
      auto j = toolgate::ParseStrictJson(l, limits);
      v += j.ok() && (*schema)->IsValid(*j);
    }
    return v;
  };
  auto run_validate = [&] {
    size_t v = 0;
    for (const Json& j : parsed) v += (*schema)->IsValid(j);
    return v;
  };
  valid = run_parse_validate();
  run_validate();
  const auto t0 = std::chrono::steady_clock::now();
  for (int p = 0; p < passes; ++p) valid = run_parse_validate();
  const auto t1 = std::chrono::steady_clock::now();
  for (int p = 0; p < passes; ++p) valid = run_validate();
  const auto t2 = std::chrono::steady_clock::now();
  const size_t n = lines.size() * static_cast<size_t>(passes);
  uint64_t max_steps = 0;  // Untimed: the most budget any instance used.
  for (const Json& j : parsed) {
    max_steps = std::max(max_steps, (*schema)->EvaluationSteps(j));
  }
  std::printf(
      "{\"instances\":%zu,\"valid\":%zu,\"passes\":%d,"
      "\"parse_validate_ns\":%.1f,\"validate_ns\":%.1f,"
      "\"max_steps\":%llu}\n",
      lines.size(), valid, passes, NsPerInstance(t1 - t0, n),
      NsPerInstance(t2 - t1, n), static_cast<unsigned long long>(max_steps));
  return 0;
}
