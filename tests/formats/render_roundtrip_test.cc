// Differential render tests: call lists built from the JSON-Schema-Test-
// Suite's values (every schema and instance of draft 2020-12 and draft-07)
// and from random JSON documents, rendered in every family's syntax, read
// back exactly: the same names, canonical arguments and Mistral ids.
// Every proper prefix of a sample of renderings is refused (except where a
// family without a closing token ends a complete call there).
//
// The suite is found through $TOOLGATE_CONFORMANCE_DIR or by walking up
// from this BUILD file's real location (../shared/conformance).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/extract/formats/formats.h"
#include "core/extract/formats/render.h"
#include "core/json/strict_json.h"
#include "gtest/gtest.h"
#include "tests/testing/strict_json_gen.h"

namespace toolgate {
namespace extract {
namespace {

namespace fs = std::filesystem;
using repair::RepairPolicy;

std::string FindSuite() {
  if (const char* env = std::getenv("TOOLGATE_CONFORMANCE_DIR")) return env;
  std::error_code ec;
  fs::path start = fs::canonical("tests/formats/BUILD", ec);
  if (ec) start = fs::current_path();
  for (fs::path p = start; p.has_parent_path() && p != p.parent_path();
       p = p.parent_path()) {
    fs::path candidate = p / "shared/conformance/JSON-Schema-Test-Suite";
    if (fs::is_directory(candidate / "tests")) return candidate.string();
  }
  return "";
}

// Every schema and every instance of a draft's test files.
void CollectSuiteValues(const fs::path& dir, std::vector<Json>* out) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    auto file = ParseStrictJson(buf.str(), JsonLimits{50 << 20, 256});
    if (!file.ok()) continue;  // Not every file is strict JSON.
    for (const Json& group : *file) {
      out->push_back(group.value("schema", Json()));
      for (const Json& test : group.value("tests", Json::array())) {
        out->push_back(test.value("data", Json()));
      }
    }
  }
}

std::vector<Json> RandomValues(int n) {
  std::vector<Json> out;
  json_internal::JsonTextGenerator gen(20291);
  while (static_cast<int>(out.size()) < n) {
    auto v = ParseStrictJson(gen.Document(6));
    if (v.ok()) out.push_back(*std::move(v));
  }
  return out;
}

const std::vector<std::string> kNames = {"search", "pkg.lookup", "a.b.c",
                                         "get_weather2", "_private"};
const std::vector<std::string> kOtherNames = {"do-it", "ns/tool", "v1.2"};

// Two calls around `value`: it as an argument, and (an object) as the
// arguments themselves.
std::vector<CallToRender> CallsFor(const Json& value, size_t i) {
  std::vector<CallToRender> calls;
  CallToRender first;
  first.name = kNames[i % kNames.size()];
  first.arguments = {{"v", value}, {"n", i}};
  if (i % 2 == 0) first.id = absl::StrCat("abcDE", 1000 + i % 9000);
  calls.push_back(std::move(first));
  if (value.is_object()) {
    CallToRender second;
    second.name = i % 3 == 0 ? kOtherNames[i % kOtherNames.size()]
                             : kNames[(i + 1) % kNames.size()];
    second.arguments = value;
    calls.push_back(std::move(second));
  }
  return calls;
}

struct Tally {
  int read = 0;
  int unrenderable = 0;
  int ambiguous = 0;
};

void ExpectReadBack(TextFormat format, const std::string& before,
                    const std::string& rendered,
                    const std::vector<CallToRender>& calls, Tally* tally) {
  const std::string text = before + rendered;
  for (RepairPolicy policy :
       {RepairPolicy::kStrict, RepairPolicy::kSyntaxRepair}) {
    const ExtractionResult r = ReadDeclaredFormat(text, format, policy);
    if (absl::StrContains(rendered, "</think>")) {
      // A reasoning closer inside the calls: two readings (frame.h).
      EXPECT_EQ(r.error.code, "ambiguous_output") << text;
      ++tally->ambiguous;
      return;
    }
    ASSERT_TRUE(r.ok()) << TextFormatName(format) << ": " << r.error.code
                        << " " << r.error.pointer << " " << r.error.message
                        << "\n" << text;
    ASSERT_EQ(r.calls.size(), calls.size());
    for (size_t i = 0; i < calls.size(); ++i) {
      EXPECT_EQ(r.calls[i].name, calls[i].name);
      ASSERT_EQ(CanonicalJson(r.calls[i].arguments),
                CanonicalJson(calls[i].arguments))
          << TextFormatName(format) << "\n" << text;
      EXPECT_EQ(r.calls[i].id,
                format == TextFormat::kMistral ? calls[i].id : "");
    }
  }
  ++tally->read;
}

void RoundTrip(const std::vector<Json>& values, Tally* tally) {
  for (size_t i = 0; i < values.size(); ++i) {
    const std::vector<CallToRender> calls = CallsFor(values[i], i);
    for (TextFormat format : kDeclaredFormats) {
      absl::StatusOr<std::string> text = RenderCalls(format, calls);
      if (!text.ok()) {
        ++tally->unrenderable;
        continue;
      }
      ExpectReadBack(format, "", *text, calls, tally);
      if (testing::Test::HasFailure()) return;
      // Reasoning before any format, prose before those that allow it.
      ExpectReadBack(format, "<think>[f()] [TOOL_CALLS]</think>\n", *text,
                     calls, tally);
      if (format != TextFormat::kPythonic &&
          format != TextFormat::kLlama3Json) {
        ExpectReadBack(format, "Let me do that.\n\n", *text, calls, tally);
      }
    }
  }
}

TEST(RenderRoundTripTest, SuiteValuesReadBackInEveryFormat) {
  const std::string suite = FindSuite();
  ASSERT_FALSE(suite.empty())
      << "JSON-Schema-Test-Suite not found: set TOOLGATE_CONFORMANCE_DIR";
  std::vector<Json> values;
  CollectSuiteValues(fs::path(suite) / "tests" / "draft2020-12", &values);
  CollectSuiteValues(fs::path(suite) / "tests" / "draft7", &values);
  ASSERT_GT(values.size(), 2500u);
  Tally tally;
  RoundTrip(values, &tally);
  // Names like "do-it" cannot be written in Python, nor keys like "$ref".
  EXPECT_GT(tally.read, static_cast<int>(values.size()) * 4);
  std::cout << "suite values: " << values.size() << ", renderings read back: "
            << tally.read << ", not expressible: " << tally.unrenderable
            << "\n";
}

TEST(RenderRoundTripTest, RandomValuesReadBackInEveryFormat) {
  const std::vector<Json> values = RandomValues(3000);
  Tally tally;
  RoundTrip(values, &tally);
  EXPECT_GT(tally.read, 3000 * 5);
  std::cout << "random values: renderings read back: " << tally.read
            << ", not expressible: " << tally.unrenderable << "\n";
}

TEST(RenderRoundTripTest, EveryProperPrefixIsRefused) {
  const std::vector<Json> values = RandomValues(120);
  for (size_t i = 0; i < values.size(); ++i) {
    const std::vector<CallToRender> calls = CallsFor(values[i], i);
    for (TextFormat format : kDeclaredFormats) {
      absl::StatusOr<std::string> text = RenderCalls(format, calls);
      if (!text.ok()) continue;
      for (size_t k = 0; k < text->size(); ++k) {
        const ExtractionResult r =
            ReadDeclaredFormat(text->substr(0, k), format);
        if (!r.ok()) continue;
        // Only the families without a closer, only at a call's end.
        ASSERT_TRUE(format == TextFormat::kHermes ||
                    format == TextFormat::kLlama3Json)
            << TextFormatName(format) << " read a prefix: "
            << text->substr(0, k);
        const std::string prefix = text->substr(0, k);
        const absl::string_view cut =
            absl::StripTrailingAsciiWhitespace(prefix);
        ASSERT_TRUE(absl::EndsWith(cut, "</tool_call>") ||
                    absl::EndsWith(cut, "}"));
        ASSERT_LT(r.calls.size(), calls.size());
      }
    }
  }
}

}  // namespace
}  // namespace extract
}  // namespace toolgate
