#include "server/idle_deadline.h"

#include <chrono>
#include <utility>

namespace toolgate {
namespace server {
namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

IdleDeadline::IdleDeadline(int64_t timeout_ms, std::function<void()> expire)
    : timeout_ns_(timeout_ms * 1000000),
      expire_(std::move(expire)),
      word_(NowNs()) {}

IdleDeadline* IdleDeadline::Start(int64_t timeout_ms,
                                  std::function<void()> expire) {
  auto* deadline = new IdleDeadline(timeout_ms, std::move(expire));
  absl::MutexLock lock(&deadline->mu_);
  deadline->SetAlarm(deadline->word_.load() + deadline->timeout_ns_);
  return deadline;
}

bool IdleDeadline::Arrived() {
  int64_t word = word_.load(std::memory_order_relaxed);
  while (word != kExpired) {
    if (word_.compare_exchange_weak(word, kBusy)) return true;
  }
  return false;
}

void IdleDeadline::Waiting() { word_.store(NowNs()); }

void IdleDeadline::Release() {
  grpc::Alarm* alarm;
  {
    absl::MutexLock lock(&mu_);
    released_ = true;
    alarm = alarm_.get();
  }
  // Outside the lock: the cancelled alarm's callback takes it. The alarm
  // lives until this reference goes (it is set again only before
  // released_).
  if (alarm != nullptr) alarm->Cancel();
  Unref();
}

void IdleDeadline::SetAlarm(int64_t due_ns) {
  // Always in the future (the timeout is at least 100 ms): grpc runs the
  // callback on its executor, never inline under mu_.
  alarm_ = std::make_unique<grpc::Alarm>();
  alarm_->Set(std::chrono::system_clock::now() +
                  std::chrono::nanoseconds(due_ns - NowNs()),
              [this](bool fired) { OnAlarm(fired); });
}

void IdleDeadline::OnAlarm(bool fired) {
  // The alarm that fired, freed once the lock is let go (its callback, this
  // one, holds gRPC's own reference until it returns).
  std::unique_ptr<grpc::Alarm> spent;
  bool expire = false;
  {
    absl::MutexLock lock(&mu_);
    if (fired && !released_) {
      const int64_t now = NowNs();
      int64_t since = word_.load();
      // Only a wait unchanged since it was read expires: a message that
      // arrived meanwhile (Arrived, Waiting) changed the word.
      if (since >= 0 && now - since >= timeout_ns_) {
        expire = word_.compare_exchange_strong(since, kExpired);
      }
      if (!expire && since != kExpired) {
        const bool waiting = since >= 0 && since + timeout_ns_ > now;
        spent = std::move(alarm_);
        SetAlarm(waiting ? since + timeout_ns_ : now + timeout_ns_);
        return;
      }
    }
  }
  if (expire) expire_();
  Unref();
}

void IdleDeadline::Unref() {
  if (refs_.fetch_sub(1) == 1) delete this;
}

}  // namespace server
}  // namespace toolgate
