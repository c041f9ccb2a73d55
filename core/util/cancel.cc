#include "core/util/cancel.h"

#include <utility>

namespace toolgate {

CancelToken::CancelToken(std::function<bool()> cancelled, absl::Time deadline,
                         absl::Duration poll_interval)
    : cancelled_(std::move(cancelled)),
      deadline_(deadline),
      poll_interval_(poll_interval),
      // The first poll waits one interval: a request that finishes sooner
      // never pays for it (CheckNow still polls).
      last_poll_(absl::Now()) {}

absl::Status CancelToken::Check() const {
  if (!cancelled_ && deadline_ == absl::InfiniteFuture()) {
    return absl::OkStatus();
  }
  const absl::Time now = absl::Now();
  if (now - last_poll_ < poll_interval_ && !gone_ && now < deadline_) {
    return absl::OkStatus();
  }
  return Poll(now);
}

absl::Status CancelToken::CheckNow() const {
  if (!cancelled_ && deadline_ == absl::InfiniteFuture()) {
    return absl::OkStatus();
  }
  return Poll(absl::Now());
}

absl::Status CancelToken::Poll(absl::Time now) const {
  if (now >= deadline_) {
    return absl::DeadlineExceededError(
        "the call's deadline passed before toolgate decided; no decision was "
        "made");
  }
  last_poll_ = now;
  if (!gone_ && cancelled_) gone_ = cancelled_();
  if (gone_) {
    return absl::CancelledError(
        "the caller cancelled the call before toolgate decided; no decision "
        "was made");
  }
  return absl::OkStatus();
}

}  // namespace toolgate
