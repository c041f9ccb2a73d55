// CheckToolCalls' bounds: calls per output, violations per result (count
// and bytes), near-name searches per output, and cancellation.
#include "core/gate/gate.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;

std::shared_ptr<const Snapshot> Tools(const std::vector<std::string>& names,
                                      const Json& schema = Json(true)) {
  Manifest m;
  for (const std::string& n : names) m.tools.push_back(ToolSpec{n, "", schema});
  auto s = Snapshot::Compile(m, "test");
  EXPECT_TRUE(s.ok()) << s.status();
  return *s;
}

RawCalls Calls(int n, const std::string& name,
               const Json& args = Json::object()) {
  RawCalls calls;
  for (int i = 0; i < n; ++i) {
    RawCall c;
    c.name = name;
    c.arguments = args;
    calls.calls.push_back(c);
  }
  return calls;
}

TEST(Gate, MoreCallsThanTheCapIsOneViolationAndNothingChecked) {
  auto snapshot = Tools({"search"});
  GateOptions options;
  options.max_calls_per_output = 3;
  GateResult ok = CheckToolCalls(*snapshot, Calls(3, "search"), options);
  EXPECT_EQ(ok.decision, Decision::kAllow);
  GateResult r = CheckToolCalls(*snapshot, Calls(4, "search"), options);
  EXPECT_EQ(r.decision, Decision::kReject);
  ASSERT_THAT(r.violations, SizeIs(1));
  EXPECT_EQ(r.violations[0].code, "too_many_calls");
  EXPECT_EQ(r.violations[0].expected, "at most 3 tool calls in one output");
  EXPECT_TRUE(r.calls.empty());
}

TEST(Gate, ViolationBytesAreCappedKeepingAtLeastOne) {
  // additionalProperties: false with long keys: long pointers.
  auto snapshot = Tools({"t"}, Json{{"additionalProperties", false}});
  Json args = Json::object();
  for (int k = 0; k < 10; ++k) {
    args[absl::StrCat(k, std::string(1000, 'k'))] = k;
  }
  GateOptions options;
  options.max_violation_bytes = 5000;
  GateResult r = CheckToolCalls(*snapshot, Calls(2, "t", args), options);
  EXPECT_EQ(r.decision, Decision::kReject);
  ASSERT_GE(r.violations.size(), 2u);
  EXPECT_LT(r.violations.size(), 20u);
  EXPECT_EQ(r.violations.back().code, "too_many_violations");
  options.max_violation_bytes = 1;
  r = CheckToolCalls(*snapshot, Calls(2, "t", args), options);
  ASSERT_THAT(r.violations, SizeIs(2));
  EXPECT_EQ(r.violations[0].code, "invalid_arguments");
  EXPECT_THAT(r.violations[1].message, HasSubstr("19 more violations"));
}

TEST(Gate, NearNamesAreSearchedForTheFirstUnknownCallsOnly) {
  auto snapshot = Tools({"search", "update"});
  GateOptions options;
  options.max_suggested_calls = 2;
  GateResult r = CheckToolCalls(*snapshot, Calls(3, "serch"), options);
  ASSERT_THAT(r.violations, SizeIs(3));
  EXPECT_THAT(r.violations[0].message, HasSubstr("did you mean \"search\""));
  EXPECT_THAT(r.violations[1].message, HasSubstr("did you mean \"search\""));
  EXPECT_THAT(r.violations[2].message, Not(HasSubstr("did you mean")));
  EXPECT_EQ(r.violations[2].expected, "one of: search | update");
}

TEST(Gate, UnknownToolListIsBounded) {
  std::vector<std::string> names;
  for (int i = 0; i < 30; ++i) names.push_back(absl::StrCat("tool_", i));
  auto snapshot = Tools(names);
  GateResult r = CheckToolCalls(*snapshot, Calls(1, "zzzzzzzzzzzz"));
  ASSERT_THAT(r.violations, SizeIs(1));
  EXPECT_THAT(r.violations[0].expected,
              HasSubstr(" | ... (10 more; GetSnapshot lists every tool)"));
}

TEST(Gate, CancelledBetweenCallsDecidesNothing) {
  auto snapshot = Tools({"search"});
  int polls = 0;
  CancelToken cancel([&] { return ++polls > 2; }, absl::InfiniteFuture(),
                     absl::ZeroDuration());
  GateOptions options;
  options.cancel = &cancel;
  GateResult r = CheckToolCalls(*snapshot, Calls(5, "search"), options);
  EXPECT_EQ(r.interrupted.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(r.decision, Decision::kReject);  // Never ALLOW.
  EXPECT_THAT(r.calls, SizeIs(2));
}

}  // namespace
}  // namespace toolgate
