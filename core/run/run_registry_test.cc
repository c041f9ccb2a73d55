#include "core/run/run_registry.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

std::shared_ptr<const Snapshot> TestSnapshot() {
  // The registry never looks inside tools; an empty manifest is refused, so
  // build through the real path with a boolean schema.
  Manifest m;
  m.tools.push_back(ToolSpec{"t", "", Json(true)});
  auto s = Snapshot::Compile(m, "test");
  EXPECT_TRUE(s.ok()) << s.status();
  return *s;
}

TEST(RunRegistry, TokenIsCheckedAndNeverTreatedAsNoRun) {
  RunRegistry runs;
  auto opened = runs.Open(TestSnapshot(), "m", {}, RunLimits{});
  ASSERT_TRUE(opened.ok());
  const std::string id = opened->run->id();
  EXPECT_EQ(opened->token.size(), 64u);
  EXPECT_TRUE(runs.Authorize(id, opened->token).ok());
  EXPECT_EQ(runs.Authorize(id, "wrong").status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(runs.Authorize(id, "").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(runs.Authorize("run_nope", opened->token).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(runs.Close(id, "wrong").code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(runs.Close(id, opened->token).ok());
  EXPECT_EQ(runs.Authorize(id, opened->token).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(RunRegistry, BreakerCountsDownOpensAndResets) {
  RunRegistry runs;
  auto opened = runs.Open(TestSnapshot(), "m", {}, RunLimits{3});
  ASSERT_TRUE(opened.ok());
  toolgate::Run& run = *opened->run;
  struct Step {
    bool reject;
    int attempt, left;
    bool open;
  };
  const Step steps[] = {{true, 1, 2, false},
                        {false, 0, 3, false},
                        {true, 1, 2, false},
                        {true, 2, 1, false},
                        {true, 3, 0, true}};
  for (const Step& s : steps) {
    LoopState st = s.reject ? run.RecordReject() : run.RecordAllow();
    EXPECT_EQ(st.attempt, s.attempt);
    EXPECT_EQ(st.attempts_left, s.left);
    EXPECT_EQ(st.breaker_open, s.open);
  }
  EXPECT_TRUE(run.Current().breaker_open);
  // An allow does not close an open breaker; only Reset does.
  EXPECT_TRUE(run.RecordAllow().breaker_open);
  run.Reset();
  EXPECT_FALSE(run.Current().breaker_open);
  EXPECT_EQ(run.Current().attempts_left, 3);
}

TEST(RunRegistry, SettingsAndLimits) {
  RunRegistry runs(RunRegistryOptions{1});
  auto a = runs.Open(TestSnapshot(), "m", {}, RunLimits{});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->run->max_consecutive_rejects(), 5);  // Snapshot default.
  EXPECT_EQ(runs.Open(TestSnapshot(), "m", {}, RunLimits{}).status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(runs.Open(TestSnapshot(), "m", {}, RunLimits{5000}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(RunRegistry, KillSwitchLatchesUntilResetAndIsPerRun) {
  RunRegistry runs;
  auto a = runs.Open(TestSnapshot(), "m", {}, RunLimits{0, 2, 3});
  auto b = runs.Open(TestSnapshot(), "m", {}, RunLimits{0, 2, 3});
  ASSERT_TRUE(a.ok() && b.ok());
  using output::OutputVerdict;
  EXPECT_FALSE(a->run->RecordOutput(OutputVerdict::kInvalid));
  EXPECT_FALSE(a->run->RecordOutput(OutputVerdict::kValid));
  EXPECT_TRUE(a->run->RecordOutput(OutputVerdict::kInvalid));
  EXPECT_TRUE(a->run->RecordOutput(OutputVerdict::kValid));  // Latched.
  EXPECT_FALSE(b->run->read_only());
  a->run->Reset();
  EXPECT_FALSE(a->run->read_only());
  EXPECT_EQ(
      runs.Open(TestSnapshot(), "m", {}, RunLimits{0, -5, 0}).status().code(),
      absl::StatusCode::kInvalidArgument);
  // Threshold above window is refused, not clamped.
  EXPECT_EQ(
      runs.Open(TestSnapshot(), "m", {}, RunLimits{0, 4, 3}).status().code(),
      absl::StatusCode::kInvalidArgument);
}

TEST(RunRegistry, RunsAreIsolated) {
  RunRegistry runs;
  auto a = runs.Open(TestSnapshot(), "m", {}, RunLimits{2});
  auto b = runs.Open(TestSnapshot(), "m", {}, RunLimits{2});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->run->id(), b->run->id());
  EXPECT_NE(a->token, b->token);
  EXPECT_EQ(runs.Authorize(a->run->id(), b->token).status().code(),
            absl::StatusCode::kPermissionDenied);
  a->run->RecordReject();
  a->run->RecordReject();
  EXPECT_TRUE(a->run->Current().breaker_open);
  EXPECT_FALSE(b->run->Current().breaker_open);
}

TEST(RunRegistry, ModelAndContextAreCappedAtOpen) {
  using Context = std::map<std::string, std::string>;
  Context many;
  for (size_t i = 0; i <= kMaxContextEntries; ++i)
    many[absl::StrCat("k", i)] = "";
  Context wide;  // Each entry within its caps, the total over.
  for (int i = 0; i < 5; ++i) {
    wide[absl::StrCat("k", i)] = std::string(kMaxContextValueBytes, 'v');
  }
  struct Case {
    std::string name;
    std::string model;
    Context context;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"model", std::string(kMaxModelBytes + 1, 'm'), {}, "model is 257 bytes"},
      {"entries", "m", many, "context has 33 entries"},
      {"key",
       "m",
       {{std::string(kMaxContextKeyBytes + 1, 'k'), "v"}},
       "a context key is 129 bytes"},
      {"value",
       "m",
       {{"k", std::string(kMaxContextValueBytes + 1, 'v')}},
       "context[\"k\"] is 1025 bytes"},
      {"total", "m", wide, "total 5130 bytes"},
  };
  RunRegistry runs;
  for (const Case& c : cases) {
    auto opened = runs.Open(TestSnapshot(), c.model, c.context, RunLimits{});
    EXPECT_EQ(opened.status().code(), absl::StatusCode::kInvalidArgument)
        << c.name;
    EXPECT_THAT(opened.status().message(), testing::HasSubstr(c.message))
        << c.name;
  }
  EXPECT_EQ(runs.size(), 0u);
  // At the caps exactly, a run opens.
  Context at_caps;
  for (int i = 0; i < 3; ++i) {
    at_caps[absl::StrCat("k", i)] = std::string(kMaxContextValueBytes, 'v');
  }
  EXPECT_TRUE(runs.Open(TestSnapshot(), std::string(kMaxModelBytes, 'm'),
                        at_caps, RunLimits{})
                  .ok());
}

}  // namespace
}  // namespace toolgate
