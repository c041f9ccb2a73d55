// Regression tests: every request's work and memory is bounded, and a
// caller that has gone gets no decision.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/engine/engine.h"
#include "core/engine/limits_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;
using testutil::AllPages;
using testutil::AnthropicCalls;
using testutil::ManyTools;

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
                [this](const AuditRecord& r) {
                  audit_.push_back(r);
                  return true;
                }) {}

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
                                 NameRule::kClaim, PastDeadline());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kDeadlineExceeded);
  int pages = 0;
  EXPECT_THAT(AllPages(engine, 0, &pages), SizeIs(0));
}

}  // namespace
}  // namespace toolgate
