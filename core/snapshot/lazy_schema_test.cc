// Tools a snapshot does not keep resident (past its ResidentBudget) are
// compiled on use: they must validate exactly as resident ones, share one
// pooled program across snapshots, recompile after the pool evicts them,
// and refuse (never allow) when their program cannot be had.
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/snapshot/schema_pool.h"
#include "core/snapshot/snapshot.h"
#include "core/snapshot/tool_schema.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "schemas/embedded_examples.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;

// Tools covering what a program holds: patterns, enums, $ref into the
// manifest's documents, format as an assertion, nested objects and arrays,
// an output schema, and a schema two tools share.
constexpr char kManifest[] = R"({"toolgate":"v1","tools":[
  {"name":"get_invoice","input_schema":{"type":"object",
     "properties":{"invoice_id":{"type":"string","pattern":"^INV-[0-9]{8}$"}},
     "required":["invoice_id"],"additionalProperties":false},
   "output_schema":{"type":"object","required":["amount"],
     "properties":{"amount":{"$ref":"https://example.test/money.json"}}}},
  {"name":"refund","policy":{"format_assertion":true},"input_schema":{
     "type":"object","required":["amount","reason"],
     "properties":{"amount":{"$ref":"https://example.test/money.json"},
       "reason":{"enum":["duplicate","fraudulent"]},
       "email":{"type":"string","format":"email"}},
     "additionalProperties":false}},
  {"name":"tag","input_schema":{"type":"object","properties":{
     "tags":{"type":"array","items":{"type":"string","maxLength":5},
             "maxItems":2,"uniqueItems":true}}}},
  {"name":"tag_again","input_schema":{"type":"object","properties":{
     "tags":{"type":"array","items":{"type":"string","maxLength":5},
             "maxItems":2,"uniqueItems":true}}}}],
 "documents":{"https://example.test/money.json":{"type":"object",
   "required":["cents","currency"],
   "properties":{"cents":{"type":"integer","minimum":1},
                 "currency":{"enum":["EUR","USD"]}}}}})";

struct Call {
  const char* tool;
  const char* arguments;
  bool valid;
};

const Call kCalls[] = {
    {"get_invoice", R"({"invoice_id":"INV-12345678"})", true},
    {"get_invoice", R"({"invoice_id":"INV-1"})", false},
    {"get_invoice", R"({"invoice_id":"INV-12345678","x":1})", false},
    {"get_invoice", R"({})", false},
    {"refund",
     R"({"amount":{"cents":5,"currency":"EUR"},"reason":"duplicate"})", true},
    {"refund", R"({"amount":{"cents":0,"currency":"GBP"},"reason":"other"})",
     false},
    {"refund",
     R"({"amount":{"cents":5,"currency":"USD"},"reason":"fraudulent",
         "email":"not an email"})",
     false},
    {"refund",
     R"({"amount":{"cents":5,"currency":"USD"},"reason":"fraudulent",
         "email":"a@example.com"})",
     true},
    {"tag", R"({"tags":["a","b"]})", true},
    {"tag", R"({"tags":["a","a","toolong"]})", false},
    {"tag_again", R"({"tags":["a","b"]})", true},
    {"tag_again", R"({"tags":[1]})", false},
};

// Every tool past the budget: no program stays resident.
ResidentBudget NothingResident() {
  ResidentBudget budget;
  budget.times_manifest = 0;
  budget.min_program_bytes = 0;
  return budget;
}

std::shared_ptr<const Snapshot> Load(const ResidentBudget& budget) {
  auto m = ParseManifest(kManifest, ManifestFormat::kToolgate);
  EXPECT_TRUE(m.ok()) << m.status();
  auto s = Snapshot::Compile(*std::move(m), "billing", nullptr, budget);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : nullptr;
}

// Sets the process-wide pool's budget for one test, then restores it.
class PoolBudget {
 public:
  explicit PoolBudget(size_t bytes) : saved_(SchemaPool::Global().max_bytes()) {
    SchemaPool::Global().SetMaxBytes(0);  // Start empty.
    SchemaPool::Global().SetMaxBytes(bytes);
  }
  ~PoolBudget() { SchemaPool::Global().SetMaxBytes(saved_); }

 private:
  const size_t saved_;
};

void ExpectSameViolations(const std::vector<schema::SchemaViolation>& a,
                          const std::vector<schema::SchemaViolation>& b,
                          const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].instance_pointer, b[i].instance_pointer) << what;
    EXPECT_EQ(a[i].schema_pointer, b[i].schema_pointer) << what;
    EXPECT_EQ(a[i].keyword, b[i].keyword) << what;
    EXPECT_EQ(a[i].expected, b[i].expected) << what;
    EXPECT_EQ(a[i].received, b[i].received) << what;
    EXPECT_EQ(a[i].message, b[i].message) << what;
  }
}

TEST(LazySchemaTest, SmallManifestKeepsEveryProgramResident) {
  auto s = Load(ResidentBudget());
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->lazy_schemas(), 0u);
  EXPECT_EQ(s->resident_schemas(), 5u);
}

// The shipped example manifests (what the engine benchmark validates
// against) keep every program resident: their calls take the path they
// always took, with no pool lookup.
TEST(LazySchemaTest, ExampleManifestsKeepEveryProgramResident) {
  ASSERT_FALSE(EmbeddedExampleManifests().empty());
  for (const EmbeddedManifest& e : EmbeddedExampleManifests()) {
    auto s = SnapshotStore().Create(e.contents, ManifestFormat::kAuto, "");
    ASSERT_TRUE(s.ok()) << e.file << ": " << s.status();
    EXPECT_EQ((*s)->lazy_schemas(), 0u) << e.file;
    EXPECT_GT((*s)->resident_schemas(), 0u) << e.file;
  }
}

// With the pool keeping programs (hits) and keeping none (every use
// compiles), a lazy tool gives the same verdict and the same violations.
TEST(LazySchemaTest, LazyToolValidatesExactlyAsResident) {
  auto resident = Load(ResidentBudget());
  auto lazy = Load(NothingResident());
  ASSERT_TRUE(resident != nullptr && lazy != nullptr);
  EXPECT_EQ(lazy->resident_schemas(), 0u);
  EXPECT_EQ(lazy->lazy_schemas(), 5u);
  EXPECT_EQ(lazy->id(), resident->id());
  EXPECT_EQ(lazy->warnings(), resident->warnings());
  for (size_t pool_bytes : {size_t{0}, size_t{1} << 20}) {
    PoolBudget pool(pool_bytes);
    for (const Call& c : kCalls) {
      const std::string what = std::string(c.tool) + " " + c.arguments;
      const Json args = Json::parse(c.arguments);
      const schema::Schema& r = *resident->FindTool(c.tool)->input;
      const schema::Schema& l = *lazy->FindTool(c.tool)->input;
      EXPECT_EQ(r.IsValid(args), c.valid) << what;
      EXPECT_EQ(l.IsValid(args), c.valid) << what;
      std::vector<schema::SchemaViolation> rv, lv;
      EXPECT_EQ(l.Validate(args, schema::ValidationMode::kAllErrors, 20, &lv),
                r.Validate(args, schema::ValidationMode::kAllErrors, 20, &rv))
          << what;
      ExpectSameViolations(rv, lv, what);
      EXPECT_EQ(l.EvaluationSteps(args), r.EvaluationSteps(args)) << what;
      EXPECT_EQ(l.dialect(), r.dialect());
    }
  }
  // The output schema too ($ref into the documents).
  const Json bad_output = Json::parse(R"({"amount":{"cents":1}})");
  EXPECT_FALSE(lazy->FindTool("get_invoice")->output->IsValid(bad_output));
  EXPECT_TRUE(lazy->FindTool("get_invoice")
                  ->output->IsValid(Json::parse(
                      R"({"amount":{"cents":1,"currency":"EUR"}})")));
  EXPECT_EQ(lazy->FindTool("tag")->output, nullptr);
}

// A lazy schema needs only what its snapshot owns: a caller holding it
// can still validate after the snapshot is gone.
TEST(LazySchemaTest, HeldLazySchemaOutlivesItsSnapshot) {
  PoolBudget pool(0);
  std::shared_ptr<const schema::Schema> held;
  {
    auto lazy = Load(NothingResident());
    ASSERT_NE(lazy, nullptr);
    held = lazy->FindTool("get_invoice")->input;
  }
  EXPECT_TRUE(held->IsValid(Json::parse(R"({"invoice_id":"INV-12345678"})")));
  EXPECT_FALSE(held->IsValid(Json::parse(R"({"invoice_id":"INV-1"})")));
}

// A program compiled on use is pooled under the schema's content key: the
// next use, from this snapshot or another with the same schema, is a hit.
TEST(LazySchemaTest, PooledProgramIsSharedAcrossSnapshots) {
  PoolBudget pool(1 << 20);
  auto a = Load(NothingResident());
  auto b = Load(NothingResident());
  ASSERT_TRUE(a != nullptr && b != nullptr);
  const Json args = Json::parse(R"({"tags":["x"]})");
  const uint64_t before = SchemaPool::Global().inserted();
  EXPECT_TRUE(a->FindTool("tag")->input->IsValid(args));
  EXPECT_EQ(SchemaPool::Global().inserted(), before + 1);
  EXPECT_TRUE(b->FindTool("tag")->input->IsValid(args));
  EXPECT_TRUE(a->FindTool("tag_again")->input->IsValid(args));  // Same text.
  EXPECT_EQ(SchemaPool::Global().inserted(), before + 1);
  EXPECT_EQ(SchemaPool::Global().entries(), 1u);
}

// The pool is bounded by bytes: with room for about two programs, using
// all five evicts the least recently used, stays within its budget, and an
// evicted tool compiles again, validating as before.
TEST(LazySchemaTest, PoolEvictsByBytesAndRecompiles) {
  auto lazy = Load(NothingResident());
  ASSERT_NE(lazy, nullptr);
  auto resident = Load(ResidentBudget());
  size_t largest = 0;
  for (const char* t : {"get_invoice", "refund", "tag"}) {
    largest = std::max(largest, resident->FindTool(t)->input->compiled_bytes());
  }
  // Released: a program a snapshot keeps resident is shared, not pooled.
  resident.reset();
  const size_t budget = 2 * largest + 1024;
  PoolBudget pool(budget);
  const uint64_t evicted = SchemaPool::Global().evicted();
  for (int round = 0; round < 3; ++round) {
    for (const Call& c : kCalls) {
      EXPECT_EQ(
          lazy->FindTool(c.tool)->input->IsValid(Json::parse(c.arguments)),
          c.valid)
          << c.tool << " " << c.arguments;
      EXPECT_LE(SchemaPool::Global().bytes(), budget);
    }
  }
  EXPECT_GT(SchemaPool::Global().evicted(), evicted);
  EXPECT_LE(SchemaPool::Global().entries(), 2u);
}

// When the program cannot be had at use, the schema refuses: IsValid is
// false even for an instance the schema accepts, and Validate says why.
// (Cannot happen for a schema that compiled at load short of memory; here
// the source text is made uncompilable by hand.)
TEST(LazySchemaTest, ProgramUnavailableAtUseRefusesNeverAllows) {
  PoolBudget pool(1 << 20);
  SchemaSource source;
  source.canonical_json = R"({"type":"object","minProperties":-1})";
  source.documents_digest = "none";
  LazyToolSchema broken(&source, 0,
                        static_cast<uint32_t>(source.canonical_json.size()),
                        false, schema::Dialect::kDraft2020_12);
  const Json anything = Json::object();
  EXPECT_FALSE(broken.IsValid(anything));
  std::vector<schema::SchemaViolation> why;
  EXPECT_FALSE(
      broken.Validate(anything, schema::ValidationMode::kAllErrors, 20, &why));
  ASSERT_EQ(why.size(), 1u);
  EXPECT_EQ(why[0].keyword, "internal");
  EXPECT_THAT(why[0].message, HasSubstr("could not be compiled"));
  EXPECT_THAT(why[0].message, HasSubstr("refused"));
  EXPECT_GT(broken.EvaluationSteps(anything), uint64_t{1} << 40);
  // Unparseable text too.
  source.canonical_json = "{\"type\":";
  LazyToolSchema cut(&source, 0, 8, false, schema::Dialect::kDraft2020_12);
  EXPECT_FALSE(cut.IsValid(anything));
}

// Many threads validate lazy tools of two snapshots while a pool with room
// for about one program evicts constantly: every verdict stays right.
// (TSan runs this: bazel/tsan.)
TEST(LazySchemaTest, ConcurrentUseWhileThePoolEvicts) {
  auto a = Load(NothingResident());
  auto b = Load(NothingResident());
  ASSERT_TRUE(a != nullptr && b != nullptr);
  auto resident = Load(ResidentBudget());
  const size_t one = resident->FindTool("refund")->input->compiled_bytes();
  resident.reset();  // Shared while resident: the pool would see no use.
  PoolBudget pool(one + 512);
  const uint64_t evicted = SchemaPool::Global().evicted();
  std::vector<Json> args;
  for (const Call& c : kCalls) args.push_back(Json::parse(c.arguments));
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      const Snapshot& s = (t % 2 == 0) ? *a : *b;
      for (int round = 0; round < 20; ++round) {
        for (size_t i = 0; i < args.size(); ++i) {
          const size_t k = (i + t) % args.size();
          if (s.FindTool(kCalls[k].tool)->input->IsValid(args[k]) !=
              kCalls[k].valid) {
            wrong.fetch_add(1);
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(SchemaPool::Global().evicted(), evicted);
}

TEST(LazySchemaTest, BadManifestIsStillRefusedAtLoad) {
  auto m = ParseManifest(
      R"({"tools":[{"name":"a","inputSchema":{"type":"object"}},
                   {"name":"b","inputSchema":{"type":"object",
                    "properties":{"x":{"pattern":"(?<=a)b"}}}}]})",
      ManifestFormat::kMcp);
  ASSERT_TRUE(m.ok()) << m.status();
  auto s = Snapshot::Compile(*std::move(m), "", nullptr, NothingResident());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(),
              HasSubstr("tool \"b\": schema at /tools/1/inputSchema"));
}

}  // namespace
}  // namespace toolgate
