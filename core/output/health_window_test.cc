#include "core/output/health_window.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace toolgate {
namespace output {
namespace {

constexpr OutputVerdict V = OutputVerdict::kValid;
constexpr OutputVerdict I = OutputVerdict::kInvalid;

struct WindowCase {
  std::string name;
  HealthWindowOptions options;
  std::vector<OutputVerdict> verdicts;
  // read_only() after each verdict.
  std::vector<bool> read_only;
  int final_invalid_in_window;
};

class HealthWindowTest : public testing::TestWithParam<WindowCase> {};

TEST_P(HealthWindowTest, TurnsReadOnlyAtThresholdAndLatches) {
  const WindowCase& c = GetParam();
  ASSERT_EQ(c.verdicts.size(), c.read_only.size());
  auto window = OutputHealthWindow::Create(c.options);
  ASSERT_TRUE(window.ok()) << window.status();
  for (size_t i = 0; i < c.verdicts.size(); ++i) {
    EXPECT_EQ(window->Record(c.verdicts[i]), c.read_only[i]) << "step " << i;
    EXPECT_EQ(window->read_only(), c.read_only[i]) << "step " << i;
  }
  EXPECT_EQ(window->invalid_in_window(), c.final_invalid_in_window);
}

INSTANTIATE_TEST_SUITE_P(
    Table, HealthWindowTest,
    testing::Values(
        WindowCase{"three_invalid_in_a_row", {3, 10}, {I, I, I},
                   {false, false, true}, 3},
        WindowCase{"spread_within_window", {3, 10},
                   {I, V, V, I, V, V, V, V, I},
                   {false, false, false, false, false, false, false, false,
                    true},
                   3},
        // The first I has left the 10-wide window when the third arrives.
        WindowCase{"oldest_evicted_before_threshold", {3, 10},
                   {I, V, V, V, V, V, V, V, V, I, V, I},
                   {false, false, false, false, false, false, false, false,
                    false, false, false, false},
                   2},
        // Latched: valid outputs afterwards evict the invalid ones from the
        // window but do not clear read_only.
        WindowCase{"latches", {2, 3}, {I, I, V, V, V},
                   {false, true, true, true, true}, 0},
        WindowCase{"threshold_one", {1, 1}, {V, V, I},
                   {false, false, true}, 1},
        WindowCase{"only_valid", {3, 10}, {V, V, V, V, V, V, V, V, V, V, V},
                   {false, false, false, false, false, false, false, false,
                    false, false, false},
                   0},
        // Needs all of the last three: V, I, I is not enough.
        WindowCase{"window_equals_threshold", {3, 3}, {I, I, V, I, I, I},
                   {false, false, false, false, false, true}, 3}),
    [](const testing::TestParamInfo<WindowCase>& info) {
      return info.param.name;
    });

TEST(HealthWindow, DefaultsAreThreeOfTen) {
  OutputHealthWindow window;
  EXPECT_EQ(window.options().threshold, 3);
  EXPECT_EQ(window.options().window, 10);
  EXPECT_FALSE(window.Record(I));
  EXPECT_FALSE(window.Record(I));
  EXPECT_TRUE(window.Record(I));
}

TEST(HealthWindow, ResetClearsLatchAndHistory) {
  auto window = OutputHealthWindow::Create({2, 5});
  ASSERT_TRUE(window.ok());
  window->Record(I);
  window->Record(I);
  ASSERT_TRUE(window->read_only());
  window->Reset();
  EXPECT_FALSE(window->read_only());
  EXPECT_EQ(window->recorded(), 0);
  EXPECT_EQ(window->invalid_in_window(), 0);
  // History is gone: one more INVALID is not enough.
  EXPECT_FALSE(window->Record(I));
  EXPECT_TRUE(window->Record(I));
}

TEST(HealthWindow, RecordedSaturatesAtWindow) {
  auto window = OutputHealthWindow::Create({3, 4});
  ASSERT_TRUE(window.ok());
  for (int i = 0; i < 9; ++i) window->Record(V);
  EXPECT_EQ(window->recorded(), 4);
}

struct BadOptions {
  HealthWindowOptions options;
  std::string message_part;
};

TEST(HealthWindow, RefusesInvalidSettings) {
  const BadOptions cases[] = {
      {{0, 10}, "threshold must be at least 1"},
      {{-1, 10}, "threshold must be at least 1"},
      {{5, 4}, "must be at least the threshold"},
      {{3, 1001}, "at most 1000"},
  };
  for (const BadOptions& c : cases) {
    auto window = OutputHealthWindow::Create(c.options);
    ASSERT_FALSE(window.ok()) << c.options.threshold << "/" << c.options.window;
    EXPECT_EQ(window.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(window.status().message().find(c.message_part),
              std::string::npos)
        << window.status();
    EXPECT_EQ(ValidateHealthWindowOptions(c.options).code(),
              absl::StatusCode::kInvalidArgument);
  }
  EXPECT_TRUE(OutputHealthWindow::Create({1000, 1000}).ok());
  EXPECT_TRUE(OutputHealthWindow::Create({1, 1}).ok());
}

}  // namespace
}  // namespace output
}  // namespace toolgate
