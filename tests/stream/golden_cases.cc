#include "tests/stream/golden_cases.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "core/stream/sse.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace testutil {
namespace {

std::string GoldenDir() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  const std::string rel = "tests/stream/golden";
  if (srcdir == nullptr) return rel;
  return std::string(srcdir) + "/" + (workspace ? workspace : "toolgate") +
         "/" + rel;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) std::abort();  // A golden listed but unreadable: not a pass.
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::vector<GoldenStream> LoadGoldenStreams() {
  std::vector<GoldenStream> out;
  namespace fs = std::filesystem;
  for (const auto& dir : fs::directory_iterator(GoldenDir())) {
    if (!dir.is_directory()) continue;
    const std::string format_name = dir.path().filename().string();
    std::optional<stream::Format> format = stream::ParseFormat(format_name);
    if (!format) std::abort();
    for (const auto& file : fs::directory_iterator(dir.path())) {
      const std::string path = file.path().string();
      const std::string filename = file.path().filename().string();
      absl::string_view stem = filename;
      if (!absl::ConsumeSuffix(&stem, ".sse") &&
          !absl::ConsumeSuffix(&stem, ".jsonl")) {
        continue;
      }
      GoldenStream c;
      c.name = format_name + "/" + std::string(stem);
      c.path = path;
      c.format = *format;
      c.events = stream::SplitEvents(ReadAll(path));
      c.expected = nlohmann::json::parse(ReadAll(
          (dir.path() / (std::string(stem) + ".expected.json")).string()));
      out.push_back(std::move(c));
    }
  }
  if (out.empty()) std::abort();
  std::sort(out.begin(), out.end(),
            [](const GoldenStream& a, const GoldenStream& b) {
              return a.name < b.name;
            });
  return out;
}

std::string GoldenManifest() {
  return ReadAll(GoldenDir() + "/manifest.openai.json");
}

GoldenEngine::GoldenEngine() {
  auto snapshot = engine_.CreateSnapshot(GoldenManifest(),
                                         ManifestFormat::kOpenAI, "golden");
  EXPECT_TRUE(snapshot.ok()) << snapshot.status();
  if (snapshot.ok()) snapshot_id_ = (*snapshot)->id();
}

ValidateCallResponse GoldenEngine::Decide(ValidateCallRequest request) {
  request.snapshot_id = snapshot_id_;
  auto out = engine_.ValidateToolCall(request);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *std::move(out) : ValidateCallResponse{};
}

}  // namespace testutil
}  // namespace toolgate
