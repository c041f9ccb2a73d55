#include "core/state/redis_approval_events.h"

#include <utility>

#include "absl/strings/match.h"

namespace toolgate {
namespace state {

ApprovalEvents::~ApprovalEvents() {
  stopping_.store(true);
  if (thread_.joinable()) thread_.join();
}

void ApprovalEvents::StartOnce() {
  absl::MutexLock lock(&mu_);
  if (started_) return;
  started_ = true;
  thread_ = std::thread([this] { Loop(); });
}

void ApprovalEvents::Loop() {
  while (!stopping_.load()) {
    auto connection =
        redis::Connection::Open(connect_, absl::Now() + absl::Seconds(1));
    if (connection.ok()) Listen(**connection);
    subscribed_.store(false);
    // Whatever was decided meanwhile: every waiter reads again.
    NotifyAll();
    for (int i = 0; i < 2 && !stopping_.load(); ++i) {
      absl::SleepFor(absl::Milliseconds(100));
    }
  }
}

void ApprovalEvents::Listen(redis::Connection& connection) {
  const absl::Time deadline = absl::Now() + absl::Seconds(1);
  if (!connection.Send({{"SUBSCRIBE", channel_}}, deadline).ok()) return;
  while (!stopping_.load()) {
    auto next = connection.Next(absl::Now() + absl::Milliseconds(100));
    if (!next.ok()) return;
    if (!next->has_value()) continue;
    const redis::Reply& m = **next;
    if (m.type != redis::Reply::Type::kArray || m.elements.size() != 3) {
      continue;
    }
    if (m.elements[0].str == "subscribe") {
      subscribed_.store(true);
      NotifyAll();  // Decided before the subscription took: read again.
    } else if (m.elements[0].str == "message") {
      const std::string& payload = m.elements[2].str;
      if (absl::StartsWith(payload, "snapdel:")) {
        if (snapshot_deleted_) snapshot_deleted_(payload.substr(8));
      } else {
        Notify(payload);
      }
    }
  }
}

void ApprovalEvents::OnSnapshotDeleted(
    std::function<void(absl::string_view id)> deleted) {
  snapshot_deleted_ = std::move(deleted);
  StartOnce();
}

void ApprovalEvents::Notify(absl::string_view approval_id) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(approval_id);
  if (it == entries_.end()) return;
  ++it->second.generation;
  changed_.SignalAll();
}

void ApprovalEvents::NotifyAll() {
  absl::MutexLock lock(&mu_);
  for (auto& [id, entry] : entries_) ++entry.generation;
  changed_.SignalAll();
}

ApprovalEvents::Waiter::Waiter(ApprovalEvents& events,
                               absl::string_view approval_id)
    : events_(events), id_(approval_id) {
  events_.StartOnce();
  absl::MutexLock lock(&events_.mu_);
  ++events_.entries_[id_].waiters;
}

ApprovalEvents::Waiter::~Waiter() {
  absl::MutexLock lock(&events_.mu_);
  auto it = events_.entries_.find(id_);
  if (--it->second.waiters == 0) events_.entries_.erase(it);
}

uint64_t ApprovalEvents::Waiter::generation() const {
  absl::MutexLock lock(&events_.mu_);
  return events_.entries_.find(id_)->second.generation;
}

void ApprovalEvents::Waiter::WaitFor(uint64_t seen, absl::Time deadline) {
  absl::MutexLock lock(&events_.mu_);
  while (events_.entries_.find(id_)->second.generation == seen) {
    if (events_.changed_.WaitWithDeadline(&events_.mu_, deadline)) return;
  }
}

}  // namespace state
}  // namespace toolgate
