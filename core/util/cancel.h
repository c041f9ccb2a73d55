// CancelToken: how long-running work learns that its caller has gone.
//
// The gRPC server fills one per request from the call's ServerContext (its
// cancellation flag and deadline); core code, which has no gRPC dependency,
// only asks Check(). A request that was cancelled or ran past its deadline
// yields no decision: the caller is not waiting for one, and work done for
// nobody must not count toward a run's breaker or kill switch.
//
// Thread-safety: a token belongs to one request and is used by the thread
// serving it; it is not safe to share between threads.
#ifndef TOOLGATE_CORE_UTIL_CANCEL_H_
#define TOOLGATE_CORE_UTIL_CANCEL_H_

#include <functional>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace toolgate {

class CancelToken {
 public:
  // Never cancelled, no deadline (tests, the CLI, in-process callers).
  CancelToken() = default;
  // `cancelled` may be null. It can be costly (gRPC's synchronous
  // ServerContext::IsCancelled polls the completion queue: 10 to 90 us
  // measured on this project's machine), so Check() calls it at most once
  // per `poll_interval` and not before one interval has passed; the
  // deadline costs a clock read and is checked every time.
  CancelToken(std::function<bool()> cancelled, absl::Time deadline,
              absl::Duration poll_interval = absl::Milliseconds(5));

  // OK while the caller still waits; CANCELLED or DEADLINE_EXCEEDED once
  // not (as far as known: see above). Cheap: for loops and hot paths.
  absl::Status Check() const;
  // Always polls: only before a state change that a caller who has gone
  // must not cause (counting a reject toward a run's breaker).
  absl::Status CheckNow() const;

 private:
  absl::Status Poll(absl::Time now) const;

  std::function<bool()> cancelled_;
  absl::Time deadline_ = absl::InfiniteFuture();
  absl::Duration poll_interval_ = absl::Milliseconds(5);
  mutable absl::Time last_poll_ = absl::InfinitePast();
  mutable bool gone_ = false;
};

}  // namespace toolgate

#endif  // TOOLGATE_CORE_UTIL_CANCEL_H_
