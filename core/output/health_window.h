// Per-run kill switch: after too many invalid tool outputs in a row-ish
// window, the run goes read-only.
//
// OutputHealthWindow keeps the verdicts of the last `window` validated tool
// outputs in a fixed ring. Once the ring holds `threshold` INVALID verdicts
// the run turns read_only, and stays so (latched) until Reset(): a run that
// recovers for a few calls has not earned back write access by itself.
//
// Thread-safety: NOT thread-safe. The run registry owns one window per run
// and guards every call with the run's mutex.
#ifndef TOOLGATE_CORE_OUTPUT_HEALTH_WINDOW_H_
#define TOOLGATE_CORE_OUTPUT_HEALTH_WINDOW_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/output/verdict.h"

namespace toolgate {
namespace output {

struct HealthWindowOptions {
  // Number of INVALID verdicts in the window that turns the run read-only.
  int threshold = 3;
  // Number of most recent verdicts considered.
  int window = 10;
};

// Largest accepted window: bounds per-run memory.
inline constexpr int kMaxHealthWindow = 1000;

// OK when 1 <= threshold <= window <= kMaxHealthWindow; INVALID_ARGUMENT
// naming the broken rule otherwise.
absl::Status ValidateHealthWindowOptions(const HealthWindowOptions& options);

class OutputHealthWindow {
 public:
  // A window with the default options (3 of the last 10).
  OutputHealthWindow();

  // Refuses options ValidateHealthWindowOptions refuses.
  static absl::StatusOr<OutputHealthWindow> Create(
      const HealthWindowOptions& options);

  // Records one verdict, evicting the oldest once the window is full.
  // Returns read_only() after recording.
  bool Record(OutputVerdict verdict);

  // True once the window has held `threshold` INVALID verdicts since the
  // last Reset(); latched.
  bool read_only() const { return read_only_; }

  // INVALID verdicts among the last min(recorded(), window) verdicts.
  int invalid_in_window() const { return invalid_in_window_; }
  // Verdicts currently held (at most window).
  int recorded() const { return filled_; }

  const HealthWindowOptions& options() const { return options_; }

  // Forgets every verdict and clears the latch.
  void Reset();

 private:
  explicit OutputHealthWindow(const HealthWindowOptions& options);

  HealthWindowOptions options_;
  std::vector<uint8_t> ring_;  // 1 = INVALID.
  int next_ = 0;               // Slot the next verdict goes to.
  int filled_ = 0;
  int invalid_in_window_ = 0;
  bool read_only_ = false;
};

}  // namespace output
}  // namespace toolgate

#endif  // TOOLGATE_CORE_OUTPUT_HEALTH_WINDOW_H_
