// The ValidateToolCallStream calls open at once, capped by
// --max_call_streams, and the bytes they hold between messages (their
// headers, assembled content and audit events: ToolCallStream::held_bytes).
//
// Each open stream holds memory until it is answered, so without a cap a
// client opening streams and leaving them open grows the server without
// bound (issue 25: 400 streams held 1.1 GB). A call past the cap is
// RESOURCE_EXHAUSTED before any of its messages is read, as AwaitApproval
// is past its waits.
//
// The same class caps Envoy's ext_proc Process streams
// (--max_ext_proc_streams), with an instance of its own.
//
// A slot is not held forever by a client that sends nothing: a stream
// that waits idle_timeout_ms() for a message (--stream_idle_timeout_ms) is
// ended DEADLINE_EXCEEDED and frees its slot (IdleDeadline; an ext_proc
// stream only before its first message, since after it Envoy waits for the
// tool).
//
// Thread-safety: every method may be called concurrently (atomics only).
#ifndef TOOLGATE_SERVER_CALL_STREAMS_H_
#define TOOLGATE_SERVER_CALL_STREAMS_H_

#include <atomic>
#include <cstdint>

namespace toolgate {
namespace server {

// What one stream can hold at the default limits is a few MB (docs in
// options.h, --max_call_streams): this many stay well under 1 GB.
inline constexpr int kDefaultMaxCallStreams = 64;
// Envoy opens one ext_proc stream per request in flight; each holds at
// most two bodies of --max_input_bytes and 16 KiB of headers.
inline constexpr int kDefaultMaxExtProcStreams = 1024;
// How long an open stream may wait for a message before it is ended.
inline constexpr int kDefaultStreamIdleTimeoutMs = 30000;

class CallStreams {
 public:
  // `idle_timeout_ms` 0: streams are never ended for waiting.
  explicit CallStreams(int max_open,
                       int idle_timeout_ms = kDefaultStreamIdleTimeoutMs)
      : max_open_(max_open), idle_timeout_ms_(idle_timeout_ms) {}
  CallStreams(const CallStreams&) = delete;
  CallStreams& operator=(const CallStreams&) = delete;

  // Takes a slot for a new call; false when max_open() calls hold one.
  bool TryOpen() {
    int open = open_.load(std::memory_order_relaxed);
    while (open < max_open_) {
      if (open_.compare_exchange_weak(open, open + 1)) return true;
    }
    return false;
  }
  // Gives back a slot TryOpen took (once the call is done with).
  void Close() { open_.fetch_sub(1); }
  // A call's held bytes changed by `delta`.
  void Hold(int64_t delta) {
    held_bytes_.fetch_add(delta, std::memory_order_relaxed);
  }

  int max_open() const { return max_open_; }
  int idle_timeout_ms() const { return idle_timeout_ms_; }
  int open() const { return open_.load(std::memory_order_relaxed); }
  int64_t held_bytes() const {
    return held_bytes_.load(std::memory_order_relaxed);
  }

 private:
  const int max_open_;
  const int idle_timeout_ms_;
  std::atomic<int> open_{0};
  std::atomic<int64_t> held_bytes_{0};
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_CALL_STREAMS_H_
