// The idle deadline of one gRPC stream (--stream_idle_timeout_ms): a
// stream that waits that long for its next message is ended, so that
// clients opening streams and sending nothing cannot hold every slot of
// --max_call_streams or --max_ext_proc_streams (CallStreams) forever.
//
// One grpc::Alarm per stream, set once per timeout period, not once per
// message: a message only marks when the wait restarted (Waiting). When
// the alarm fires on a stream that has waited less than the timeout (or is
// busy with a message), it is set again for the rest; past it, `expire`
// ends the call (the reactor's Finish, with no decision).
//
// The reactor calls Arrived() first in each OnReadDone: the reaction and
// the alarm race for the stream and exactly one wins. Arrived() false:
// the deadline ended the call (or is ending it on another thread); the
// reactor must drop what it read and touch nothing else. From Arrived()
// to the next Waiting() the stream is busy and never expires; a reactor
// that stops calling Waiting() (it answers, or needs no deadline past its
// first message) is never ended by the deadline.
//
// Lifetime: Start returns an object the reactor gives back once with
// Release() (in OnDone at the latest); the alarm keeps it alive until its
// last callback has run. `expire` runs only while the reactor waits for a
// read it started and has not finished the call, so the reactor is alive
// then (its OnDone comes after the Finish `expire` calls).
//
// Thread-safety: Arrived, Waiting and Release from the reactor's
// callbacks (one at a time); the alarm runs on a gRPC executor thread.
#ifndef TOOLGATE_SERVER_IDLE_DEADLINE_H_
#define TOOLGATE_SERVER_IDLE_DEADLINE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/alarm.h"

namespace toolgate {
namespace server {

class IdleDeadline {
 public:
  // Starts the wait for the first message: `expire` runs once, on a gRPC
  // thread, if none comes within `timeout_ms` (> 0).
  static IdleDeadline* Start(int64_t timeout_ms, std::function<void()> expire);

  IdleDeadline(const IdleDeadline&) = delete;
  IdleDeadline& operator=(const IdleDeadline&) = delete;

  // A read completed (a message, or the end of the client's side): true
  // when the reactor may go on, false when the deadline came first.
  bool Arrived();
  // The reactor waits for its next message again (call just before
  // StartRead): the wait restarts now.
  void Waiting();
  // The reactor is done with the deadline: it ends nothing from now on.
  void Release();

 private:
  // word_ holds when the wait started (steady-clock ns, >= 0), or:
  static constexpr int64_t kBusy = -1;     // A message is being read.
  static constexpr int64_t kExpired = -2;  // `expire` ended the call.

  IdleDeadline(int64_t timeout_ms, std::function<void()> expire);
  ~IdleDeadline() = default;

  void SetAlarm(int64_t due_ns) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnAlarm(bool fired);
  void Unref();

  const int64_t timeout_ns_;
  const std::function<void()> expire_;
  std::atomic<int64_t> word_;
  // The reactor's and the alarm chain's.
  std::atomic<int> refs_{2};
  absl::Mutex mu_;
  bool released_ ABSL_GUARDED_BY(mu_) = false;
  std::unique_ptr<grpc::Alarm> alarm_ ABSL_GUARDED_BY(mu_);
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_IDLE_DEADLINE_H_
