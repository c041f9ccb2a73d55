// Schema-pool thrash (hardening round 2, item 11): a small manifest whose
// tool schemas compile to programs too large for the schema pool made
// every call of a request compile its tool again, every request, outside
// any budget (24 calls: 16 CPU-seconds). Now such schemas are refused at
// CreateSnapshot (schema_too_complex), a request keeps every program it
// used and spends a bounded amount of compile work, and what is past that
// budget is refused, never allowed. Work is asserted as counted (compiles,
// bytes), never as time.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/engine/engine.h"
#include "core/snapshot/schema_pool.h"
#include "core/snapshot/tool_schema.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;

std::string Name(int i) { return absl::StrFormat("t%02d", i); }

// Anthropic tools t00, t01, ...: tool i's input schema is `schema(i)`.
template <typename Fn>
std::string Tools(int n, Fn schema, const Json& documents = Json()) {
  Json tools = Json::array();
  for (int i = 0; i < n; ++i) {
    tools.push_back({{"name", Name(i)}, {"input_schema", schema(i)}});
  }
  if (documents.is_null()) return tools.dump();
  // A toolgate manifest: the same tool fields, and $ref documents.
  return Json{{"toolgate", "v1"}, {"tools", tools}, {"documents", documents}}
      .dump();
}

Json StringsMatching(const std::vector<std::string>& patterns) {
  Json props = Json::object();
  for (size_t k = 0; k < patterns.size(); ++k) {
    props[absl::StrCat("p", k)] = {{"type", "string"},
                                   {"pattern", patterns[k]}};
  }
  return {{"type", "object"}, {"properties", props}};
}

struct ThrashCase {
  std::string label;
  std::string manifest;
  std::string says;  // Beyond "schema_too_complex".
};

std::vector<ThrashCase> ThrashCases() {
  // The issue's manifest: 24 tools, 3 patterns each, ~9 KB.
  const std::string issue = Tools(24, [](int i) {
    return StringsMatching({absl::StrCat("^\\p{L}{", 300 - i, "}$"),
                            absl::StrCat("^[\\p{L}\\p{N}]{1,", 200 + i, "}$"),
                            absl::StrCat("^\\p{Lu}\\p{L}{", 250 + i, "}$")});
  });
  const std::string doc_uri = "https://example.test/shared.json";
  Json big_enum = Json::array();
  for (int i = 0; i < 15000; ++i) big_enum.push_back(absl::StrCat("v", i));
  // Each tool $refs one ~124 KB document: a ~3 MB compile for each.
  const std::string via_doc = Tools(
      24,
      [&](int i) {
        return Json{{"title", absl::StrCat("t", i)}, {"$ref", doc_uri}};
      },
      Json{{doc_uri, {{"enum", big_enum}}}});
  return {
      {"issue 25: 24 tools of \\p{L}{300}-style patterns", issue,
       "tool \"t00\": schema at /0/input_schema"},
      {"nested counted repetition",
       Tools(24,
             [](int i) {
               return StringsMatching(
                   {absl::StrCat("(\\p{L}{20}){", 10 + i, "}")});
             }),
       "/properties/p0/pattern"},
      {"nested counts past RE2's limit",
       Tools(24,
             [](int i) {
               return StringsMatching(
                   {absl::StrCat("(a{100}){", 100 + i, "}")});
             }),
       "/properties/p0/pattern"},
      {"huge classes",
       Tools(24,
             [](int i) {
               return StringsMatching({absl::StrCat(
                   "[\\p{L}\\p{M}\\p{N}\\p{P}\\p{S}]{", 40 + i, "}")});
             }),
       "/properties/p0/pattern"},
      {"patternProperties keys",
       Tools(24,
             [](int i) {
               return Json{{"patternProperties",
                            {{absl::StrCat("^\\p{L}{", 300 + i, "}$"),
                              Json::object()}}}};
             }),
       "/patternProperties/"},
      {"each tool $refs a large document", via_doc,
       "compiling the manifest's schemas takes more than"},
  };
}

TEST(CompileBudget, ThrashManifestsAreRefusedAtCreateSnapshot) {
  Engine engine;
  for (const ThrashCase& c : ThrashCases()) {
    SCOPED_TRACE(c.label);
    ASSERT_LE(c.manifest.size(), JsonLimits().max_bytes);
    auto s = engine.CreateSnapshot(c.manifest, ManifestFormat::kAuto, "");
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    const std::string message(s.status().message());
    EXPECT_THAT(message, HasSubstr("schema_too_complex"));
    EXPECT_THAT(message, HasSubstr(c.says));
  }
  EXPECT_EQ(engine.snapshot_count(), 0u);
}

// Tools each with two distinct patterns just under the pattern bound
// (~1.1 MB of program each, so ~2.2 MB a tool): accepted, never resident
// (a 6 KB manifest keeps at most 64 KiB of programs), and 24 of them are
// far more than a 4 MiB pool holds.
std::string HeavyTools(int n) {
  return Tools(n, [](int i) {
    return StringsMatching({absl::StrCat("^\\p{L}{12}", i, "a$"),
                            absl::StrCat("^\\p{L}{12}", i, "b$")});
  });
}

std::string CallsOf(int n) {
  Json content = Json::array();
  for (int i = 0; i < n; ++i) {
    const std::string name = Name(i);
    const std::string word = "abcdefghijkl";
    content.push_back({{"type", "tool_use"},
                       {"id", absl::StrCat("c", i)},
                       {"name", name},
                       {"input",
                        {{"p0", absl::StrCat(word, i, "a")},
                         {"p1", absl::StrCat(word, i, "b")}}}});
  }
  return Json{{"role", "assistant"}, {"content", content}}.dump();
}

class PoolThrash : public testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options;
    options.schema_pool_bytes = size_t{4} << 20;
    engine_ = std::make_unique<Engine>(options);
    auto s = engine_->CreateSnapshot(HeavyTools(24), ManifestFormat::kAuto, "");
    ASSERT_TRUE(s.ok()) << s.status();
    ASSERT_EQ((*s)->lazy_schemas(), 24u);
    id_ = (*s)->id();
  }
  void TearDown() override {
    SchemaPool::Global().SetMaxBytes(SchemaPool::kDefaultMaxBytes);
  }

  absl::StatusOr<ValidateCallResponse> Validate(const std::string& output) {
    ValidateCallRequest r;
    r.snapshot_id = id_;
    r.kind = OutputKind::kNative;
    r.output = output;
    return engine_->ValidateToolCall(r);
  }

  std::unique_ptr<Engine> engine_;
  std::string id_;
};

TEST_F(PoolThrash, RequestOverTwentyFourToolsCompilesWithinItsBudget) {
  const std::string output = CallsOf(24);
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE(round);
    const uint64_t compiles = CompileScope::TotalCompiles();
    const uint64_t bytes = CompileScope::TotalCompiledBytes();
    auto r = Validate(output);
    ASSERT_TRUE(r.ok()) << r.status();
    const uint64_t spent = CompileScope::TotalCompiledBytes() - bytes;
    // The budget, plus the one compile that crosses it (a schema is at
    // most max_compiled_bytes, its JSON values a few hundred bytes here).
    EXPECT_LE(spent, CompileScope::kDefaultMaxBytes +
                         schema::CompileOptions().max_compiled_bytes);
    EXPECT_GT(spent, 0u);
    // ~2.2 MB a tool: at most 5 of the 24 compile, never 24.
    EXPECT_LE(CompileScope::TotalCompiles() - compiles, 5u);
    // The rest are refused for the work, never allowed unchecked.
    EXPECT_EQ(r->decision, Decision::kReject);
    int refused = 0;
    for (const Violation& v : r->violations) {
      if (v.keyword == "evaluation_limit") {
        ++refused;
        EXPECT_EQ(v.code, "invalid_arguments");
        EXPECT_THAT(v.message, HasSubstr("budget"));
      } else {
        ADD_FAILURE() << v.code << " " << v.keyword << ": " << v.message;
      }
    }
    EXPECT_GE(refused, 19);
  }
}

// The same tool called 24 times in one request compiles once, however
// small the pool: the request keeps the programs it used.
TEST_F(PoolThrash, RepeatedToolCompilesOncePerRequest) {
  SchemaPool::Global().SetMaxBytes(0);  // Nothing pooled at all.
  Json content = Json::array();
  for (int i = 0; i < 24; ++i) {
    content.push_back(
        {{"type", "tool_use"},
         {"id", absl::StrCat("c", i)},
         {"name", i % 2 == 0 ? "t03" : "t07"},
         {"input",
          {{"p0", i % 2 == 0 ? "abcdefghijkl3a" : "abcdefghijkl7a"},
           {"p1", i % 2 == 0 ? "abcdefghijkl3b" : "x"}}}});
  }
  const std::string output =
      Json{{"role", "assistant"}, {"content", content}}.dump();
  const uint64_t compiles = CompileScope::TotalCompiles();
  auto r = Validate(output);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(CompileScope::TotalCompiles() - compiles, 2u);
  // Each call was checked by its program: t03's are valid, t07's not.
  EXPECT_EQ(r->decision, Decision::kReject);
  for (const Violation& v : r->violations) {
    EXPECT_EQ(v.tool, "t07");
    EXPECT_EQ(v.keyword, "pattern");
  }
  EXPECT_EQ(r->violations.size(), 12u);
}

// Two tools alternating in one request, with a pool that holds only one
// program: each call found the other's program evicted and compiled its
// own again (24 compiles); the request now keeps both (2).
TEST_F(PoolThrash, AlternatingToolsDoNotThrashThePool) {
  SchemaPool::Global().SetMaxBytes(0);
  SchemaPool::Global().SetMaxBytes(size_t{3} << 20);
  Json content = Json::array();
  for (int i = 0; i < 24; ++i) {
    const int tool = i % 2 == 0 ? 3 : 7;
    content.push_back({{"type", "tool_use"},
                       {"id", absl::StrCat("c", i)},
                       {"name", Name(tool)},
                       {"input",
                        {{"p0", absl::StrCat("abcdefghijkl", tool, "a")},
                         {"p1", absl::StrCat("abcdefghijkl", tool, "b")}}}});
  }
  const std::string output =
      Json{{"role", "assistant"}, {"content", content}}.dump();
  const uint64_t inserted = SchemaPool::Global().inserted();
  auto r = Validate(output);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->decision, Decision::kAllow);
  EXPECT_LE(SchemaPool::Global().inserted() - inserted, 2u);
}

// With a pool that holds them, each request compiles within its budget
// and pools what it compiled: the next request gets further, and once all
// are pooled the output is decided with no compile at all.
TEST_F(PoolThrash, RequestsMakeProgressWhenThePoolHoldsThem) {
  SchemaPool::Global().SetMaxBytes(SchemaPool::kDefaultMaxBytes);
  const std::string output = CallsOf(24);
  Decision last = Decision::kReject;
  for (int round = 0; round < 12 && last != Decision::kAllow; ++round) {
    auto r = Validate(output);
    ASSERT_TRUE(r.ok()) << r.status();
    last = r->decision;
  }
  EXPECT_EQ(last, Decision::kAllow);
  const uint64_t compiles = CompileScope::TotalCompiles();
  auto r = Validate(output);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->decision, Decision::kAllow);
  EXPECT_EQ(CompileScope::TotalCompiles(), compiles);
}

// A budget of 0: a tool whose program is neither resident nor pooled is
// refused (evaluation_limit); resident tools are unaffected.
TEST(CompileBudget, ZeroBudgetRefusesOnlyWhatWouldCompile) {
  EngineOptions options;
  options.schema_pool_bytes = 0;
  options.request_compile_bytes = 0;
  Engine engine(options);
  auto heavy = engine.CreateSnapshot(HeavyTools(2), ManifestFormat::kAuto, "");
  ASSERT_TRUE(heavy.ok()) << heavy.status();
  ValidateCallRequest r;
  r.snapshot_id = (*heavy)->id();
  r.kind = OutputKind::kNative;
  const std::string output = CallsOf(1);
  r.output = output;
  auto refused = engine.ValidateToolCall(r);
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->decision, Decision::kReject);
  ASSERT_FALSE(refused->violations.empty());
  EXPECT_EQ(refused->violations[0].keyword, "evaluation_limit");

  auto light = engine.CreateSnapshot(
      Tools(1, [](int) { return StringsMatching({"^abcdefghijkl0a$"}); }),
      ManifestFormat::kAuto, "");
  ASSERT_TRUE(light.ok());
  ASSERT_EQ((*light)->lazy_schemas(), 0u);
  r.snapshot_id = (*light)->id();
  auto allowed = engine.ValidateToolCall(r);
  ASSERT_TRUE(allowed.ok());
  EXPECT_EQ(allowed->decision, Decision::kAllow);
  SchemaPool::Global().SetMaxBytes(SchemaPool::kDefaultMaxBytes);
}

}  // namespace
}  // namespace toolgate
