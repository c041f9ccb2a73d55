// Decisions made on any replica, heard by this one: one subscriber
// connection per process (started by the first waiter) listens on the
// store's events channel, where ApprovalDecide publishes each decided
// approval's id, and wakes the AwaitApproval calls waiting for it. A
// message can be lost (the connection drops, the store restarts): after
// every (re)subscription all waiters are woken to read their approval
// again, and waiters re-read at least once a second anyway.
//
// Thread-safety: safe from any thread.
#ifndef TOOLGATE_CORE_STATE_REDIS_APPROVAL_EVENTS_H_
#define TOOLGATE_CORE_STATE_REDIS_APPROVAL_EVENTS_H_

#include <atomic>
#include <functional>
#include <cstdint>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "core/redis/connection.h"

namespace toolgate {
namespace state {

class ApprovalEvents {
 public:
  ApprovalEvents(redis::ConnectOptions connect, std::string channel)
      : connect_(std::move(connect)), channel_(std::move(channel)) {}
  ~ApprovalEvents();  // Stops the subscriber.
  ApprovalEvents(const ApprovalEvents&) = delete;
  ApprovalEvents& operator=(const ApprovalEvents&) = delete;

  // One AwaitApproval's interest in one approval, for its lifetime.
  class Waiter {
   public:
    Waiter(ApprovalEvents& events, absl::string_view approval_id);
    ~Waiter();
    // Bumped whenever the approval may have changed.
    uint64_t generation() const;
    bool Changed(uint64_t seen) const { return generation() != seen; }
    // Until generation() != seen, or `deadline`.
    void WaitFor(uint64_t seen, absl::Time deadline);

   private:
    ApprovalEvents& events_;
    const std::string id_;
  };

  // Calls `deleted(id)` (on the subscriber's thread) for every snapshot a
  // replica deletes, starting the subscriber now. Once, before serving. A
  // deletion published while the subscriber was reconnecting is missed:
  // that copy stays until evicted (content-addressed: never other content).
  void OnSnapshotDeleted(std::function<void(absl::string_view id)> deleted);

  // Whether the subscriber is subscribed now (tests).
  bool subscribed() const { return subscribed_.load(); }

 private:
  struct Entry {
    int waiters = 0;
    uint64_t generation = 0;
  };
  void StartOnce();
  void Loop();
  // One connection's life: subscribe, then deliver until it fails.
  void Listen(redis::Connection& connection);
  void Notify(absl::string_view approval_id);
  void NotifyAll();

  const redis::ConnectOptions connect_;
  const std::string channel_;
  // Set before the subscriber starts, read only by it.
  std::function<void(absl::string_view)> snapshot_deleted_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> subscribed_{false};
  mutable absl::Mutex mu_;
  absl::CondVar changed_;
  absl::flat_hash_map<std::string, Entry> entries_ ABSL_GUARDED_BY(mu_);
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;  // Set once, under mu_, by StartOnce.
};

}  // namespace state
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STATE_REDIS_APPROVAL_EVENTS_H_
