// Decide: the one place a decision is made, and it is fail-closed.
#include "core/gate/decide.h"

#include <memory>
#include <string>

#include "core/gate/gate.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

TEST(Decide, NothingCheckedIsNeverAnAllow) {
  GateResult result;  // No call, no violation: no stage filled it.
  Decide(GateOptions(), &result);
  EXPECT_EQ(result.decision, Decision::kReject);
}

TEST(Decide, AValidCallWithAViolationRecordedIsNotAnAllow) {
  GateResult result;
  CheckedCall call;
  call.valid = true;
  result.calls.push_back(call);
  result.violations.push_back(Violation{"some_stage_found_this"});
  Decide(GateOptions(), &result);
  EXPECT_EQ(result.decision, Decision::kReject);
}

TEST(Decide, AVetoRejectsAValidOutputWithItsReason) {
  GateResult result;
  CheckedCall call;
  call.valid = true;
  result.calls.push_back(call);
  result.needs_approval = true;
  result.vetoes.push_back(Violation{"vetoed"});
  result.veto_reason = "vetoed";
  Decide(GateOptions(), &result);
  EXPECT_EQ(result.decision, Decision::kReject);
  EXPECT_EQ(result.stop_reason, "vetoed");
  ASSERT_EQ(result.violations.size(), 1u);
  EXPECT_EQ(result.violations[0].code, "vetoed");
}

// The stages add violations stage by stage (unknown tools while resolving,
// schema violations after); the response lists them call by call, as the
// gate did when it checked call by call.
TEST(Decide, ViolationsAreListedInCallOrderAcrossStages) {
  Manifest m;
  m.tools.push_back(ToolSpec{"t", "", Json{{"type", "object"}}});
  auto snapshot = Snapshot::Compile(m, "test");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  RawCalls calls;
  RawCall invalid;
  invalid.name = "t";
  invalid.arguments = Json::array();
  RawCall unknown;
  unknown.name = "nope";
  unknown.arguments = Json::object();
  calls.calls = {invalid, unknown, invalid};
  GateResult r = CheckToolCalls(**snapshot, calls);
  ASSERT_EQ(r.violations.size(), 3u);
  EXPECT_EQ(r.violations[0].call_index, 0);
  EXPECT_EQ(r.violations[0].code, "invalid_arguments");
  EXPECT_EQ(r.violations[1].call_index, 1);
  EXPECT_EQ(r.violations[1].code, "unknown_tool");
  EXPECT_EQ(r.violations[2].call_index, 2);
  EXPECT_EQ(r.violations[2].code, "invalid_arguments");
}

}  // namespace
}  // namespace toolgate
