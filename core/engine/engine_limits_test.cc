// Regression tests: every request's work and memory is bounded, and a
// caller that has gone gets no decision.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/engine/engine.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;

// A manifest of `n` Anthropic tools named tool_0000 ... with boolean
// schemas; `suffix` lengthens every name.
std::string ManyTools(int n, const std::string& suffix = "") {
  Json tools = Json::array();
  for (int i = 0; i < n; ++i) {
    char name[16];
    snprintf(name, sizeof(name), "tool_%04d", i);
    tools.push_back({{"name", name + suffix}, {"input_schema", true}});
  }
  return tools.dump();
}

std::string AnthropicCalls(const std::vector<std::string>& names) {
  Json content = Json::array();
  for (size_t i = 0; i < names.size(); ++i) {
    content.push_back({{"type", "tool_use"},
                       {"id", absl::StrCat("t", i)},
                       {"name", names[i]},
                       {"input", Json::object()}});
  }
  return Json{{"role", "assistant"}, {"content", content}}.dump();
}

size_t ResponseBytes(const ValidateCallResponse& r) {
  size_t n = r.repair_prompt.size();
  for (const Violation& v : r.violations) {
    n += v.code.size() + v.tool.size() + v.pointer.size() + v.keyword.size() +
         v.expected.size() + v.received.size() + v.message.size() +
         v.schema_pointer.size();
  }
  for (const CallReport& c : r.calls) {
    n += c.id.size() + c.name.size() + c.arguments_json.size();
  }
  return n;
}

class EngineLimitsTest : public testing::Test {
 protected:
  EngineLimitsTest()
      : engine_(EngineOptions(),
                [this](const AuditRecord& r) { audit_.push_back(r); }) {}

  void SetUp() override {
    auto s =
        engine_.CreateSnapshot(ManyTools(1300), ManifestFormat::kAuto, "many");
    ASSERT_TRUE(s.ok()) << s.status();
    many_ = (*s)->id();
  }

  absl::StatusOr<ValidateCallResponse> Validate(const std::string& output,
                                                CancelToken cancel = {}) {
    ValidateCallRequest r;
    r.snapshot_id = many_;
    r.kind = OutputKind::kNative;
    r.output = output;
    r.cancel = std::move(cancel);
    return engine_.ValidateToolCall(r);
  }

  Engine engine_;
  std::vector<AuditRecord> audit_;
  std::string many_;
};

TEST_F(EngineLimitsTest, HugeUnknownNameGetsNoSuggestionsAndIsCut) {
  const std::string huge(190 * 1024, 'x');
  auto r = Validate(AnthropicCalls({huge}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->decision, Decision::kReject);
  ASSERT_THAT(r->violations, SizeIs(1));
  const Violation& v = r->violations[0];
  EXPECT_EQ(v.code, "unknown_tool");
  EXPECT_EQ(v.tool, std::string(kMaxToolNameBytes, 'x') + "...");
  EXPECT_THAT(v.message, HasSubstr("the name is 194560 bytes; tool names are "
                                   "at most 128"));
  EXPECT_THAT(v.message, Not(HasSubstr("did you mean")));
  // No near names: the list of tools, itself bounded.
  EXPECT_THAT(v.expected, HasSubstr("tool_0019 | ... (1280 more; "));
  EXPECT_LT(ResponseBytes(*r), 8 * 1024);
  ASSERT_THAT(audit_, SizeIs(1));
  EXPECT_THAT(audit_[0].tools,
              ElementsAre(std::string(kMaxToolNameBytes, 'x') + "..."));
}

TEST_F(EngineLimitsTest, NearNamesAreSuggestedNearestFirstAndAtMostThree) {
  // Many names are one edit away; ties go by name.
  auto r = Validate(AnthropicCalls({"tool_012"}));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_THAT(r->violations, SizeIs(1));
  EXPECT_EQ(r->violations[0].expected,
            "one of: tool_0012 | tool_0102 | tool_0112");
  EXPECT_THAT(r->violations[0].message,
              HasSubstr("did you mean \"tool_0012\""));
  // Case-insensitive equality is the nearest of all.
  r = Validate(AnthropicCalls({"TOOL_0500"}));
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r->violations[0].expected,
              testing::StartsWith("one of: tool_0500 |"));
}

TEST_F(EngineLimitsTest, TooManyCallsIsOneViolationAndABoundedResponse) {
  std::vector<std::string> names;
  for (int i = 0; i < 2150; ++i) names.push_back(absl::StrCat("nope_", i));
  auto r = Validate(AnthropicCalls(names));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->decision, Decision::kReject);
  ASSERT_THAT(r->violations, SizeIs(1));
  EXPECT_EQ(r->violations[0].code, "too_many_calls");
  EXPECT_EQ(r->violations[0].received, "2150 tool calls");
  EXPECT_THAT(r->violations[0].message, HasSubstr("at most 64"));
  EXPECT_TRUE(r->calls.empty());
  EXPECT_LT(ResponseBytes(*r), 4 * 1024);
  ASSERT_THAT(audit_, SizeIs(1));
  EXPECT_THAT(audit_[0].codes, ElementsAre("too_many_calls"));
}

// One output of 64 calls (the most one output may carry), each with 20
// violations (the per-call cap): 1,280 found, 100 listed plus a count.
std::string ManyViolations(Engine* engine, std::string* snapshot_id) {
  const std::string strict = R"([{"name":"t","input_schema":{
      "type":"object","additionalProperties":false}}])";
  auto s = engine->CreateSnapshot(strict, ManifestFormat::kAuto, "");
  EXPECT_TRUE(s.ok()) << s.status();
  if (s.ok()) *snapshot_id = (*s)->id();
  Json input = Json::object();
  for (int k = 0; k < 30; ++k) input[absl::StrCat("k", k)] = k;
  Json content = Json::array();
  for (int i = 0; i < 64; ++i) {
    content.push_back({{"type", "tool_use"},
                       {"id", absl::StrCat("t", i)},
                       {"name", "t"},
                       {"input", input}});
  }
  return Json{{"role", "assistant"}, {"content", content}}.dump();
}

TEST_F(EngineLimitsTest, ViolationsPerResponseAreCapped) {
  ValidateCallRequest r;
  const std::string output = ManyViolations(&engine_, &r.snapshot_id);
  r.kind = OutputKind::kNative;
  r.output = output;
  auto out = engine_.ValidateToolCall(r);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->decision, Decision::kReject);
  ASSERT_THAT(out->violations, SizeIs(101));
  EXPECT_EQ(out->violations[99].code, "invalid_arguments");
  EXPECT_EQ(out->violations.back().code, "too_many_violations");
  EXPECT_THAT(out->violations.back().message,
              HasSubstr("1180 more violations not listed"));
  EXPECT_THAT(out->calls, SizeIs(64));
}

TEST_F(EngineLimitsTest, AuditListsAndNamesAreBounded) {
  ValidateOutputRequest o;
  o.snapshot_id = many_;
  o.tool_name = std::string(100000, 'y');
  o.content_type = "application/json";
  o.http_status = 200;
  o.body = "{}";
  ASSERT_TRUE(engine_.ValidateToolOutput(o).ok());
  ASSERT_THAT(audit_, SizeIs(1));
  EXPECT_THAT(audit_[0].tools,
              ElementsAre(std::string(kMaxToolNameBytes, 'y') + "..."));

  // 101 violation codes, listed as 64 and a count.
  ValidateCallRequest r;
  const std::string output = ManyViolations(&engine_, &r.snapshot_id);
  r.kind = OutputKind::kNative;
  r.output = output;
  ASSERT_TRUE(engine_.ValidateToolCall(r).ok());
  ASSERT_THAT(audit_, SizeIs(2));
  EXPECT_THAT(audit_[1].tools, SizeIs(64));
  ASSERT_THAT(audit_[1].codes, SizeIs(kAuditMaxListed + 1));
  EXPECT_EQ(audit_[1].codes.back(), "+37 more");
}

// Every snapshot id, following next_page_token from the first page.
std::vector<std::string> AllPages(const Engine& engine, int page_size,
                                  int* pages) {
  std::vector<std::string> ids;
  std::string token;
  *pages = 0;
  do {
    auto page = engine.ListSnapshots(page_size, token);
    EXPECT_TRUE(page.ok()) << page.status();
    if (!page.ok()) break;
    ++*pages;
    for (const auto& s : page->snapshots) ids.push_back(s->id());
    token = page->next_page_token;
  } while (!token.empty() && *pages < 1000);
  return ids;
}

std::string OneTool(int i) {
  return Json::array({{{"name", absl::StrCat("t", i)}, {"input_schema", true}}})
      .dump();
}

TEST(EngineListSnapshots, PagesFollowIdOrderWithOpaqueTokens) {
  Engine engine;
  std::set<std::string> created;
  for (int i = 0; i < 250; ++i) {
    auto s = engine.CreateSnapshot(OneTool(i), ManifestFormat::kAuto, "");
    ASSERT_TRUE(s.ok());
    created.insert((*s)->id());
  }
  int pages = 0;
  std::vector<std::string> ids = AllPages(engine, 0, &pages);
  EXPECT_EQ(pages, 3);  // Default page size: 100.
  EXPECT_EQ(ids, std::vector<std::string>(created.begin(), created.end()));
  ids = AllPages(engine, 7, &pages);
  EXPECT_EQ(pages, 36);
  EXPECT_EQ(ids.size(), 250u);

  auto first = engine.ListSnapshots(100, "");
  ASSERT_TRUE(first.ok());
  EXPECT_THAT(first->next_page_token, Not(HasSubstr("sha256")));
  // Past the maximum page size is the maximum, not an error.
  auto all = engine.ListSnapshots(1000000, "");
  ASSERT_TRUE(all.ok());
  EXPECT_THAT(all->snapshots, SizeIs(250));
  EXPECT_TRUE(all->next_page_token.empty());

  EXPECT_EQ(engine.ListSnapshots(-1, "").status().code(),
            absl::StatusCode::kInvalidArgument);
  for (const char* bad : {"garbage!", "c2hhMjU2OmFiYw", "x"}) {
    EXPECT_EQ(engine.ListSnapshots(10, bad).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
}

TEST(EngineListSnapshots, TokensStayValidWhileSnapshotsAreAdded) {
  Engine engine;
  for (int i = 0; i < 30; ++i) {
    ASSERT_TRUE(
        engine.CreateSnapshot(OneTool(i), ManifestFormat::kAuto, "").ok());
  }
  auto first = engine.ListSnapshots(10, "");
  ASSERT_TRUE(first.ok());
  std::set<std::string> seen;
  for (const auto& s : first->snapshots) seen.insert(s->id());
  // New snapshots land anywhere in id order, before and after the token.
  for (int i = 30; i < 60; ++i) {
    ASSERT_TRUE(
        engine.CreateSnapshot(OneTool(i), ManifestFormat::kAuto, "").ok());
  }
  std::string token = first->next_page_token;
  std::string last = first->snapshots.back()->id();
  while (!token.empty()) {
    auto page = engine.ListSnapshots(10, token);
    ASSERT_TRUE(page.ok()) << page.status();
    for (const auto& s : page->snapshots) {
      EXPECT_GT(s->id(), last);  // Never repeats, never goes back.
      EXPECT_TRUE(seen.insert(s->id()).second);
      last = s->id();
    }
    token = page->next_page_token;
  }
  // Every snapshot held before the first page was read is listed.
  auto all = engine.ListSnapshots(1000, "");
  ASSERT_TRUE(all.ok());
  size_t listed_after_first = 0;
  for (const auto& s : all->snapshots)
    listed_after_first += seen.count(s->id());
  EXPECT_GE(listed_after_first, 30u);
}

TEST(EngineListSnapshots, PagesAreBoundedByBytes) {
  EngineOptions options;
  options.snapshot_page_bytes = 40 * 1024;
  Engine engine(options);
  // Each snapshot lists 100 names of ~110 bytes: ~11 KB per entry.
  for (int i = 0; i < 20; ++i) {
    auto s = engine.CreateSnapshot(
        ManyTools(100, absl::StrCat(std::string(100, 'n'), i)),
        ManifestFormat::kAuto, "");
    ASSERT_TRUE(s.ok()) << s.status();
  }
  auto page = engine.ListSnapshots(100, "");
  ASSERT_TRUE(page.ok());
  EXPECT_THAT(page->snapshots, SizeIs(3));
  EXPECT_FALSE(page->next_page_token.empty());
  int pages = 0;
  EXPECT_THAT(AllPages(engine, 100, &pages), SizeIs(20));
  EXPECT_EQ(pages, 7);
  // A single entry over the budget still makes a page of one.
  options.snapshot_page_bytes = 1;
  Engine tiny(options);
  ASSERT_TRUE(
      tiny.CreateSnapshot(ManyTools(3), ManifestFormat::kAuto, "").ok());
  ASSERT_TRUE(
      tiny.CreateSnapshot(ManyTools(4), ManifestFormat::kAuto, "").ok());
  EXPECT_THAT(AllPages(tiny, 100, &pages), SizeIs(2));
  EXPECT_EQ(pages, 2);
}

TEST(EngineResultSchemaCache, StaysWithinItsByteBudget) {
  EngineOptions options;
  options.result_schema_cache_bytes = 4 << 20;
  Engine engine(options);
  const std::string envelope = "```json\n{\"verdict\":\"PASS\"}\n```";
  for (int i = 0; i < 300; ++i) {
    // Distinct schemas of ~40 KB compiled each.
    Json props = Json::object();
    for (int k = 0; k < 40; ++k) {
      props[absl::StrCat("p", k)] = {{"type", "integer"}, {"minimum", i}};
    }
    VerdictRequest r;
    r.envelope = envelope;
    r.result_schema = Json{{"type", "object"}, {"properties", props}}.dump();
    auto out = engine.ExtractVerdict(r);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_LE(engine.result_schema_cache().bytes(), 4u << 20) << i;
  }
  EXPECT_GT(engine.result_schema_cache().entries(), 0u);
  EXPECT_LT(engine.result_schema_cache().entries(), 300u);
}

TEST(EngineResultSchemaCache, ReusesAndEvictsLeastRecentlyUsed) {
  EngineOptions options;
  Engine sizing(options);
  VerdictRequest r;
  r.envelope = "```json\n{}\n```";
  r.result_schema = R"({"type":"object","title":"a"})";
  ASSERT_TRUE(sizing.ExtractVerdict(r).ok());
  const size_t one = sizing.result_schema_cache().bytes();
  ASSERT_GT(one, 0u);
  options.result_schema_cache_bytes = 2 * one + one / 2;  // Room for two.
  Engine engine(options);
  auto verdict = [&](const std::string& title) {
    r.result_schema =
        absl::StrCat(R"({"type":"object","title":")", title, "\"}");
    ASSERT_TRUE(engine.ExtractVerdict(r).ok());
  };
  verdict("a");
  verdict("b");
  verdict("a");  // A hit: "a" is now the most recently used.
  EXPECT_EQ(engine.result_schema_cache().entries(), 2u);
  verdict("c");  // Evicts "b".
  EXPECT_EQ(engine.result_schema_cache().entries(), 2u);
  const size_t before = engine.result_schema_cache().bytes();
  verdict("a");  // Still cached: nothing changes.
  EXPECT_EQ(engine.result_schema_cache().bytes(), before);
  EXPECT_EQ(engine.result_schema_cache().entries(), 2u);

  options.result_schema_cache_bytes = 0;  // No cache: still answers.
  Engine uncached(options);
  r.result_schema = R"({"type":"object"})";
  EXPECT_TRUE(uncached.ExtractVerdict(r).ok());
  EXPECT_EQ(uncached.result_schema_cache().entries(), 0u);
}

CancelToken Cancelled() {
  return CancelToken([] { return true; }, absl::InfiniteFuture());
}

CancelToken PastDeadline() {
  return CancelToken(nullptr, absl::Now() - absl::Seconds(1));
}

TEST(EngineCancellation, NoDecisionAndNoBreakerCount) {
  Engine engine;
  auto s = engine.CreateSnapshot(ManyTools(3), ManifestFormat::kAuto, "");
  ASSERT_TRUE(s.ok());
  auto run = engine.OpenRun((*s)->id(), "m", {}, RunLimits{2});
  ASSERT_TRUE(run.ok());
  const std::string invalid = AnthropicCalls({"nope"});
  const std::string valid = AnthropicCalls({"tool_0001"});
  ValidateCallRequest r;
  r.run_id = run->run->id();
  r.run_token = run->token;
  r.kind = OutputKind::kNative;
  for (int i = 0; i < 5; ++i) {  // More than the breaker's 2.
    r.output = i % 2 == 0 ? invalid : valid;
    r.cancel = i % 2 == 0 ? Cancelled() : PastDeadline();
    auto out = engine.ValidateToolCall(r);
    EXPECT_EQ(out.status().code(), i % 2 == 0
                                       ? absl::StatusCode::kCancelled
                                       : absl::StatusCode::kDeadlineExceeded);
  }
  EXPECT_EQ(run->run->Current().attempt, 0);
  EXPECT_FALSE(run->run->Current().breaker_open);
  r.output = invalid;
  r.cancel = CancelToken();
  auto counted = engine.ValidateToolCall(r);
  ASSERT_TRUE(counted.ok());
  EXPECT_EQ(counted->attempt, 1);  // The first reject that counts.
}

TEST(EngineCancellation, CancelledMidOutputIsNotADecision) {
  Engine engine;
  auto s = engine.CreateSnapshot(ManyTools(3), ManifestFormat::kAuto, "");
  ASSERT_TRUE(s.ok());
  std::vector<std::string> names(10, "tool_0001");
  const std::string output = AnthropicCalls(names);
  int polls = 0;
  ValidateCallRequest r;
  r.snapshot_id = (*s)->id();
  r.kind = OutputKind::kNative;
  r.output = output;
  // Gone after the third look: in the middle of the calls.
  r.cancel = CancelToken([&] { return ++polls > 3; }, absl::InfiniteFuture(),
                         absl::ZeroDuration());
  auto out = engine.ValidateToolCall(r);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kCancelled);
  EXPECT_GT(polls, 3);
}

TEST(EngineCancellation, OutputsOfAGoneCallerDoNotCountTowardTheKillSwitch) {
  Engine engine;
  auto s = engine.CreateSnapshot(ManyTools(3), ManifestFormat::kAuto, "");
  ASSERT_TRUE(s.ok());
  auto run = engine.OpenRun((*s)->id(), "m", {}, RunLimits{0, 1, 1});
  ASSERT_TRUE(run.ok());
  ValidateOutputRequest o;
  o.run_id = run->run->id();
  o.run_token = run->token;
  o.tool_name = "tool_0001";
  o.content_type = "text/html";
  o.http_status = 500;
  o.body = "<html>down</html>";
  o.cancel = Cancelled();
  EXPECT_EQ(engine.ValidateToolOutput(o).status().code(),
            absl::StatusCode::kCancelled);
  EXPECT_FALSE(run->run->read_only());
  o.cancel = CancelToken();
  auto counted = engine.ValidateToolOutput(o);
  ASSERT_TRUE(counted.ok());
  EXPECT_TRUE(counted->read_only);  // Threshold 1: this one counts.

  VerdictRequest v;
  v.envelope = "```json\n{}\n```";
  v.cancel = PastDeadline();
  EXPECT_EQ(engine.ExtractVerdict(v).status().code(),
            absl::StatusCode::kDeadlineExceeded);
}

TEST(EngineCancellation, SnapshotCompileStopsForAGoneCaller) {
  Engine engine;
  auto s = engine.CreateSnapshot(ManyTools(50), ManifestFormat::kAuto, "",
                                 PastDeadline());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kDeadlineExceeded);
  int pages = 0;
  EXPECT_THAT(AllPages(engine, 0, &pages), SizeIs(0));
}

}  // namespace
}  // namespace toolgate
