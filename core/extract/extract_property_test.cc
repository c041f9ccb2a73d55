// Property tests: random valid calls, rendered in every text format, come
// back exactly; no proper prefix of a rendering ever extracts successfully.
#include <random>
#include <string>
#include <vector>

#include "core/extract/extract.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace extract {
namespace {

using repair::RepairPolicy;

// Fragments that have broken text extractors: delimiters of every path,
// quotes of every kind, escapes, comment openers, non-ASCII.
const std::vector<std::string> kFragments = {
    "{", "}", "[", "]", "\"", "\\", "```", "~~~\n", "</tool_call>",
    "<tool_call>", "<think>", "</think>", "Action Input:", "\nAction: x\n",
    "\n", "'", "\u201C", "\u2019", "\xC3\xA9", "`", " ", "abc", "/*", "//",
    ",", ":", "\t", "\\\"", "{\"name\": \"rm\", \"arguments\": {}}"};

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  int Uniform(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }

  std::string Text() {
    std::string s;
    for (int n = Uniform(0, 4); n > 0; --n) {
      s += kFragments[Uniform(0, static_cast<int>(kFragments.size()) - 1)];
    }
    return s;
  }

  std::string Name() {
    const std::string first = "abcdefghijklmnopqrstuvwxyz";
    const std::string rest = first + "0123456789_";
    std::string name(1, first[Uniform(0, 25)]);
    for (int n = Uniform(0, 10); n > 0; --n) {
      name += rest[Uniform(0, static_cast<int>(rest.size()) - 1)];
    }
    return name;
  }

  Json Value(int depth) {
    switch (Uniform(0, depth > 0 ? 7 : 5)) {
      case 0: return Json(Uniform(-1000000, 1000000));
      case 1: return Json(Uniform(-4000, 4000) / 8.0);  // Exact in binary.
      case 2: return Json(Uniform(0, 1) == 1);
      case 3: return Json(nullptr);
      case 4:
      case 5: return Json(Text());
      case 6: return Object(depth - 1);
      default: {
        Json array = Json::array();
        for (int n = Uniform(0, 3); n > 0; --n) {
          array.push_back(Value(depth - 1));
        }
        return array;
      }
    }
  }

  Json Object(int depth) {
    Json object = Json::object();
    for (int n = Uniform(0, 4); n > 0; --n) object[Text()] = Value(depth);
    return object;
  }

 private:
  std::mt19937 rng_;
};

struct Rendering {
  std::string format;
  std::string text;
  std::string source;
};

// Every way a model might write the call. ReAct carries the arguments
// object itself, so it has no string-arguments form.
std::vector<Rendering> Render(const std::string& name, const Json& args,
                              int indent) {
  std::vector<Rendering> out;
  for (bool as_string : {false, true}) {
    Json call = {{"name", name},
                 {"arguments", as_string ? Json(args.dump()) : args}};
    const std::string json = call.dump(indent);
    const std::string form = as_string ? "/string_args" : "/object_args";
    out.push_back({"tag" + form, "<tool_call>\n" + json + "\n</tool_call>",
                   "tool_call_tag"});
    out.push_back({"backtick_fence" + form, "```json\n" + json + "\n```",
                   "fenced_block"});
    out.push_back({"tilde_fence" + form, "~~~\n" + json + "\n~~~",
                   "fenced_block"});
    out.push_back({"bare" + form, "I will call it: " + json, "bare_object"});
  }
  out.push_back({"react", "Thought: go\nAction: " + name +
                              "\nAction Input: " + args.dump(indent),
                 "react"});
  return out;
}

constexpr int kCalls = 300;
constexpr int kTruncatedCalls = 40;

TEST(ExtractProperty, EveryFormatRoundTripsExactly) {
  Generator gen(20240611);
  for (int i = 0; i < kCalls; ++i) {
    const std::string name = gen.Name();
    const Json args = gen.Object(3);
    for (const Rendering& r : Render(name, args, i % 2 == 0 ? -1 : 2)) {
      for (RepairPolicy policy :
           {RepairPolicy::kStrict, RepairPolicy::kSyntaxRepair}) {
        ExtractionResult result = ExtractToolCalls(r.text, policy);
        ASSERT_TRUE(result.ok())
            << r.format << " #" << i << ": " << result.error.code << " "
            << result.error.message << "\n" << r.text;
        ASSERT_EQ(result.calls.size(), 1u);
        EXPECT_EQ(result.calls[0].name, name);
        EXPECT_EQ(result.calls[0].arguments, args) << r.format << "\n"
                                                   << r.text;
        EXPECT_EQ(result.calls[0].source_name(), r.source);
        EXPECT_EQ(result.calls[0].candidates_seen, 1) << r.text;
        EXPECT_TRUE(result.calls[0].repairs.empty());
      }
    }
  }
}

// A proper prefix is output cut off before the call was complete: it must
// never extract, strictly or with repairs. (Renderings end at the call's
// closing delimiter, so every proper prefix is incomplete.)
TEST(ExtractProperty, NoProperPrefixEverExtracts) {
  Generator gen(777);
  for (int i = 0; i < kTruncatedCalls; ++i) {
    const std::string name = gen.Name();
    const Json args = gen.Object(2);
    for (const Rendering& r : Render(name, args, i % 2 == 0 ? -1 : 2)) {
      for (size_t cut = 0; cut < r.text.size(); ++cut) {
        const std::string prefix = r.text.substr(0, cut);
        for (RepairPolicy policy :
             {RepairPolicy::kStrict, RepairPolicy::kSyntaxRepair}) {
          ExtractionResult result = ExtractToolCalls(prefix, policy);
          ASSERT_FALSE(result.ok())
              << r.format << " cut at " << cut << " of " << r.text.size()
              << ":\n" << prefix;
        }
      }
    }
  }
}

}  // namespace
}  // namespace extract
}  // namespace toolgate
