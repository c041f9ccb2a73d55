// A Redis client for toolgate's shared state: a small pool of
// connections, one deadline per request (--state_store_timeout_ms), Lua
// scripts run by their SHA1 and loaded again when the store has lost
// them, and an observer for metrics.
//
// Fails closed: a store that cannot be reached, does not answer in time,
// answers an error (-OOM, -READONLY, -BUSY, ...) or answers in a shape the
// caller did not expect is an UNAVAILABLE / DEADLINE_EXCEEDED Status whose
// message names the store. Callers turn it into a refusal, never into a
// decision made without the state.
//
// Thread-safety: Client is thread-safe; each request takes a connection of
// its own from the pool (at most max_connections open; a request finding
// none free waits until one is, within its deadline).
#ifndef TOOLGATE_CORE_REDIS_CLIENT_H_
#define TOOLGATE_CORE_REDIS_CLIENT_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "core/redis/connection.h"

namespace toolgate::redis {

struct ClientOptions {
  ConnectOptions connect;
  absl::Duration timeout = absl::Milliseconds(50);
  size_t max_connections = 16;
};

// A Lua script, run by EVALSHA. Immutable.
class Script {
 public:
  Script(std::string name, std::string source);
  const std::string& name() const { return name_; }
  const std::string& source() const { return source_; }
  const std::string& sha1() const { return sha1_; }

 private:
  std::string name_, source_, sha1_;
};

// One EVALSHA of a pipeline (Client::EvalPipeline).
struct ScriptCall {
  const Script* script;
  std::vector<std::string> keys;
  std::vector<std::string> args;
};

// What the store's requests did, for metrics: the operation (a script's
// name, or the command), the result ("ok", "error" for an error reply,
// "timeout", "unavailable") and the time it took.
using Observer = std::function<void(absl::string_view operation,
                                    absl::string_view result,
                                    absl::Duration elapsed)>;

class Client {
 public:
  // Connects once to check the options (address, TLS, password) within
  // `startup_timeout`: a start-up error names the flag at fault.
  static absl::StatusOr<std::unique_ptr<Client>> Connect(
      ClientOptions options, absl::Duration startup_timeout);

  // Not thread-safe against requests in flight: set it before serving.
  void SetObserver(Observer observer) { observer_ = std::move(observer); }

  // One round trip. Any error reply is UNAVAILABLE.
  absl::StatusOr<std::vector<Reply>> Pipeline(absl::string_view operation,
                                              absl::Span<const Command> commands);
  absl::StatusOr<Reply> Run(absl::string_view operation, const Command& command);
  // EVALSHA: one round trip; two more only when the store answers NOSCRIPT
  // (restarted without persistence, SCRIPT FLUSH, failover).
  absl::StatusOr<Reply> Eval(const Script& script,
                             absl::Span<const std::string> keys,
                             absl::Span<const std::string> args);
  // Every call in one round trip, one reply each. When the store has lost
  // a script (NOSCRIPT) the scripts are loaded and the whole pipeline is
  // sent once more in the same round trip as the loads: callers pipeline
  // only scripts that are safe to run twice (any error reply fails the
  // whole pipeline, so the calls that ran cannot be told apart).
  absl::StatusOr<std::vector<Reply>> EvalPipeline(
      absl::string_view operation, absl::Span<const ScriptCall> calls);

  // "state store redis://host:port/db", for messages.
  const std::string& name() const { return name_; }
  const ClientOptions& options() const { return options_; }

 private:
  explicit Client(ClientOptions options);
  absl::StatusOr<std::unique_ptr<Connection>> Acquire(absl::Time deadline);
  void Release(std::unique_ptr<Connection> connection);
  // The request itself, on a connection of the pool.
  absl::StatusOr<std::vector<Reply>> RoundTrip(absl::Span<const Command> commands,
                                               absl::Time deadline);
  absl::Status ErrorReply(const Reply& reply) const;
  // The replies of one pipeline: the first error reply fails it.
  absl::StatusOr<std::vector<Reply>> Checked(
      absl::StatusOr<std::vector<Reply>> replies) const;
  void Observe(absl::string_view operation, const absl::Status& status,
               absl::Time started) const;

  const ClientOptions options_;
  const std::string name_;
  Observer observer_;
  absl::Mutex mu_;
  absl::CondVar available_;  // A connection went idle or was closed.
  std::vector<std::unique_ptr<Connection>> idle_ ABSL_GUARDED_BY(mu_);
  size_t open_ ABSL_GUARDED_BY(mu_) = 0;  // Idle and lent out.
};

}  // namespace toolgate::redis

#endif  // TOOLGATE_CORE_REDIS_CLIENT_H_
