#include "client/mcp_proxy/worker_pool.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>
#include <utility>

namespace toolgate {
namespace mcp_proxy {

WorkerPool::WorkerPool(size_t max_threads, size_t max_queued)
    : max_threads_(max_threads), max_queued_(max_queued) {
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

WorkerPool::~WorkerPool() {
  Shutdown();
  if (wake_fd_ >= 0) close(wake_fd_);
}

void WorkerPool::Shutdown() {
  std::vector<std::thread> threads;
  {
    absl::MutexLock lock(&mu_);
    stopping_.store(true);
    tasks_.clear();
    ready_.SignalAll();
    threads = std::move(threads_);
  }
  for (std::thread& t : threads) t.join();
}

bool WorkerPool::Post(Task task) {
  absl::MutexLock lock(&mu_);
  if (stopping_.load() || wake_fd_ < 0 || tasks_.size() >= max_queued_) {
    return false;
  }
  tasks_.push_back(std::move(task));
  ++in_flight_;
  if (idle_ == 0 && threads_.size() < max_threads_) {
    threads_.emplace_back([this] { Work(); });
  } else {
    ready_.Signal();
  }
  return true;
}

void WorkerPool::Work() {
  absl::MutexLock lock(&mu_);
  while (true) {
    ++idle_;
    while (tasks_.empty() && !stopping_.load()) ready_.Wait(&mu_);
    --idle_;
    if (stopping_.load()) return;
    Task task = std::move(tasks_.front());
    tasks_.pop_front();
    mu_.Unlock();
    Completion completion = task();
    mu_.Lock();
    done_.push_back(std::move(completion));
    const uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof(one));
  }
}

void WorkerPool::RunCompletions() {
  uint64_t count = 0;
  (void)!read(wake_fd_, &count, sizeof(count));
  std::deque<Completion> done;
  {
    absl::MutexLock lock(&mu_);
    done.swap(done_);
  }
  for (Completion& c : done) {
    if (c) c();
    absl::MutexLock lock(&mu_);
    --in_flight_;
  }
}

size_t WorkerPool::in_flight() const {
  absl::MutexLock lock(&mu_);
  return in_flight_;
}

}  // namespace mcp_proxy
}  // namespace toolgate
