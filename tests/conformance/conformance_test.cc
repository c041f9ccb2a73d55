// Runs every required test of the official JSON-Schema-Test-Suite
// (tests/draft2020-12/*.json and tests/draft7/*.json; optional/ excluded)
// against toolgate's schema engine and fails on any miss.
//
// The suite lives outside the repository (../shared/conformance relative to
// the repo root). It is found, in order, from $TOOLGATE_CONFORMANCE_DIR,
// from --suite_dir=DIR, or by resolving this package's BUILD file (a
// runfile symlinking back into the source tree) and walking up to a
// directory holding shared/conformance/JSON-Schema-Test-Suite.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/json/strict_json.h"
#include "core/schema/schema.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace schema {
namespace {

namespace fs = std::filesystem;

std::string g_suite_dir;  // From --suite_dir.

std::string FindSuite() {
  if (const char* env = std::getenv("TOOLGATE_CONFORMANCE_DIR")) return env;
  if (!g_suite_dir.empty()) return g_suite_dir;
  std::error_code ec;
  fs::path start = fs::canonical("tests/conformance/BUILD", ec);
  if (ec) start = fs::current_path();
  for (fs::path p = start; p.has_parent_path() && p != p.parent_path();
       p = p.parent_path()) {
    fs::path candidate = p / "shared/conformance/JSON-Schema-Test-Suite";
    if (fs::is_directory(candidate / "tests")) return candidate.string();
  }
  return "";
}

Json ReadJson(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  auto parsed = ParseStrictJson(buf.str(), JsonLimits{50 << 20, 256});
  EXPECT_TRUE(parsed.ok()) << path << ": " << parsed.status();
  return parsed.ok() ? *parsed : Json();
}

std::map<std::string, Json> Remotes(const fs::path& suite) {
  std::map<std::string, Json> out;
  const fs::path root = suite / "remotes";
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") {
      continue;
    }
    const std::string rel = fs::relative(entry.path(), root).generic_string();
    out["http://localhost:1234/" + rel] = ReadJson(entry.path());
  }
  return out;
}

struct Tally {
  int passed = 0;
  int total = 0;
};

Tally RunFile(const fs::path& file, const CompileOptions& options,
              std::vector<std::string>* misses) {
  Tally t;
  const Json groups = ReadJson(file);
  for (const Json& group : groups) {
    const std::string where =
        absl::StrCat(file.filename().string(), " / ",
                     group["description"].get<std::string>());
    auto compiled = Schema::Compile(group["schema"], options);
    for (const Json& test : group["tests"]) {
      ++t.total;
      const std::string name =
          absl::StrCat(where, " / ", test["description"].get<std::string>());
      if (!compiled.ok()) {
        misses->push_back(absl::StrCat(name, ": compile failed: ",
                                       compiled.status().message()));
        continue;
      }
      const bool expected = test["valid"].get<bool>();
      const bool fast = (*compiled)->IsValid(test["data"]);
      std::vector<SchemaViolation> violations;
      const bool full = (*compiled)->Validate(
          test["data"], ValidationMode::kAllErrors, 100, &violations);
      const bool consistent =
          fast == full && (full ? violations.empty() : !violations.empty());
      if (fast == expected && consistent) {
        ++t.passed;
        continue;
      }
      misses->push_back(absl::StrCat(
          name, ": expected ", expected ? "valid" : "invalid", ", IsValid=",
          fast, " Validate=", full, " violations=", violations.size(),
          violations.empty() ? "" : " first: " + violations[0].message));
    }
  }
  return t;
}

void RunDraft(const std::string& draft, Dialect dialect, int expected_total) {
  const std::string suite = FindSuite();
  ASSERT_FALSE(suite.empty())
      << "JSON-Schema-Test-Suite not found: set TOOLGATE_CONFORMANCE_DIR";
  CompileOptions options;
  options.default_dialect = dialect;
  options.documents = Remotes(suite);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(suite) / "tests" / draft)) {
    if (e.is_regular_file() && e.path().extension() == ".json") {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  Tally all;
  std::vector<std::string> misses;
  for (const fs::path& f : files) {
    const Tally t = RunFile(f, options, &misses);
    std::cout << draft << "/" << f.filename().string() << ": " << t.passed
              << "/" << t.total << "\n";
    all.passed += t.passed;
    all.total += t.total;
  }
  std::cout << draft << " TOTAL: " << all.passed << "/" << all.total
            << std::endl;
  for (const std::string& m : misses) ADD_FAILURE() << m;
  EXPECT_EQ(all.passed, all.total);
  // Guards against silently running a truncated suite.
  EXPECT_EQ(all.total, expected_total);
}

TEST(ConformanceTest, Draft2020_12) {
  RunDraft("draft2020-12", Dialect::kDraft2020_12, 1299);
}

TEST(ConformanceTest, Draft7) { RunDraft("draft7", Dialect::kDraft7, 927); }

}  // namespace
}  // namespace schema
}  // namespace toolgate

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--suite_dir=", 0) == 0) {
      toolgate::schema::g_suite_dir = arg.substr(12);
    }
  }
  return RUN_ALL_TESTS();
}
