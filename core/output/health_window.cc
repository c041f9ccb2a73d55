#include "core/output/health_window.h"

#include "absl/strings/str_cat.h"

namespace toolgate {
namespace output {

absl::Status ValidateHealthWindowOptions(const HealthWindowOptions& options) {
  if (options.threshold < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "kill-switch threshold must be at least 1; got ", options.threshold));
  }
  if (options.window < options.threshold) {
    return absl::InvalidArgumentError(
        absl::StrCat("kill-switch window (", options.window,
                     ") must be at least the threshold (", options.threshold,
                     ")"));
  }
  if (options.window > kMaxHealthWindow) {
    return absl::InvalidArgumentError(
        absl::StrCat("kill-switch window must be at most ", kMaxHealthWindow,
                     "; got ", options.window));
  }
  return absl::OkStatus();
}

OutputHealthWindow::OutputHealthWindow()
    : OutputHealthWindow(HealthWindowOptions()) {}

OutputHealthWindow::OutputHealthWindow(const HealthWindowOptions& options)
    : options_(options), ring_(static_cast<size_t>(options.window), 0) {}

absl::StatusOr<OutputHealthWindow> OutputHealthWindow::Create(
    const HealthWindowOptions& options) {
  absl::Status valid = ValidateHealthWindowOptions(options);
  if (!valid.ok()) return valid;
  return OutputHealthWindow(options);
}

bool OutputHealthWindow::Record(OutputVerdict verdict) {
  // Anything but an explicit kValid counts against the run.
  const uint8_t invalid = verdict == OutputVerdict::kValid ? 0 : 1;
  if (filled_ == options_.window) {
    invalid_in_window_ -= ring_[next_];
  } else {
    ++filled_;
  }
  ring_[next_] = invalid;
  invalid_in_window_ += invalid;
  next_ = (next_ + 1) % options_.window;
  if (invalid_in_window_ >= options_.threshold) read_only_ = true;
  return read_only_;
}

void OutputHealthWindow::Reset() {
  ring_.assign(ring_.size(), 0);
  next_ = 0;
  filled_ = 0;
  invalid_in_window_ = 0;
  read_only_ = false;
}

}  // namespace output
}  // namespace toolgate
