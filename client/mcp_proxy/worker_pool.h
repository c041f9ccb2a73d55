// The threads the gateway's sidecar RPCs run on, so the relay never waits
// for one: a decision (or an operator's approval) takes as long as it
// takes while pings, notifications and other calls flow.
//
// Tasks run on worker threads; each returns a completion, which runs on
// the relay's thread when it calls RunCompletions (wake_fd() is readable
// then). Workers are added while every one is busy, up to max_threads
// (approval waits hold one each); past max_queued waiting tasks, Post
// refuses.
//
// Thread-safety: Post may be called from any thread; RunCompletions and
// the destructor from the relay's thread only.
#ifndef TOOLGATE_CLIENT_MCP_PROXY_WORKER_POOL_H_
#define TOOLGATE_CLIENT_MCP_PROXY_WORKER_POOL_H_

#include <atomic>
#include <cstddef>
#include <deque>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "client/mcp_proxy/session.h"

namespace toolgate {
namespace mcp_proxy {

class WorkerPool : public Executor {
 public:
  WorkerPool(size_t max_threads, size_t max_queued);
  ~WorkerPool() override;  // Shutdown().

  // Sets stopping(), drops tasks not started, joins the workers. No task
  // runs after it returns (completions not run are dropped).
  void Shutdown();

  bool Post(Task task) override;
  int wake_fd() const { return wake_fd_; }
  void RunCompletions();
  // Tasks posted whose completions have not run yet.
  size_t in_flight() const;
  // Set once the pool is shutting down; long waits poll it.
  const std::atomic<bool>* stopping() const { return &stopping_; }

 private:
  void Work();

  const size_t max_threads_;
  const size_t max_queued_;
  int wake_fd_ = -1;
  std::atomic<bool> stopping_{false};
  mutable absl::Mutex mu_;
  absl::CondVar ready_;
  std::deque<Task> tasks_ ABSL_GUARDED_BY(mu_);
  std::deque<Completion> done_ ABSL_GUARDED_BY(mu_);
  size_t idle_ ABSL_GUARDED_BY(mu_) = 0;
  size_t in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::thread> threads_ ABSL_GUARDED_BY(mu_);
};

}  // namespace mcp_proxy
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_MCP_PROXY_WORKER_POOL_H_
