#include "core/redis/client.h"

#include <openssl/sha.h>

#include <algorithm>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace toolgate::redis {
namespace {

std::string Sha1Hex(const std::string& text) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(text.data()), text.size(),
       digest);
  return absl::BytesToHexString(absl::string_view(
      reinterpret_cast<const char*>(digest), sizeof(digest)));
}

absl::string_view ResultOf(const absl::Status& s) {
  if (s.ok()) return "ok";
  if (s.code() == absl::StatusCode::kDeadlineExceeded) return "timeout";
  if (s.code() == absl::StatusCode::kUnavailable &&
      absl::StrContains(s.message(), "answered an error")) {
    return "error";
  }
  return "unavailable";
}

Command EvalShaCommand(const Script& script, absl::Span<const std::string> keys,
                       absl::Span<const std::string> args) {
  Command c{"EVALSHA", script.sha1(), absl::StrCat(keys.size())};
  c.insert(c.end(), keys.begin(), keys.end());
  c.insert(c.end(), args.begin(), args.end());
  return c;
}

// The store does not know the script (restarted without persistence,
// SCRIPT FLUSH, failover): it did not run.
bool IsNoScript(const Reply& reply) {
  return reply.is_error() && absl::StartsWith(reply.str, "NOSCRIPT");
}

// A store that did not answer in time is, to the caller, a store that is
// unavailable: DEADLINE_EXCEEDED is what gRPC says of the caller's own
// deadline, and clients treat UNAVAILABLE as "refused, try again".
absl::Status AsUnavailable(const absl::Status& status) {
  if (status.code() != absl::StatusCode::kDeadlineExceeded) return status;
  return absl::UnavailableError(status.message());
}

}  // namespace

Script::Script(std::string name, std::string source)
    : name_(std::move(name)), source_(std::move(source)),
      sha1_(Sha1Hex(source_)) {}

Client::Client(ClientOptions options)
    : options_(std::move(options)),
      name_(absl::StrCat("state store ", options_.connect.address.ToString())) {}

absl::StatusOr<std::unique_ptr<Client>> Client::Connect(
    ClientOptions options, absl::Duration startup_timeout) {
  std::unique_ptr<Client> client(new Client(std::move(options)));
  absl::StatusOr<std::unique_ptr<Connection>> c = Connection::Open(
      client->options_.connect, absl::Now() + startup_timeout);
  if (!c.ok()) return c.status();
  {
    absl::MutexLock lock(&client->mu_);
    client->open_ = 1;
  }
  client->Release(std::move(*c));
  return client;
}

absl::StatusOr<std::unique_ptr<Connection>> Client::Acquire(
    absl::Time deadline) {
  {
    absl::MutexLock lock(&mu_);
    // A CondVar, not Mutex::Await(Condition): the predicate is read here,
    // after the wait, never by the library while it waits (which the TSan
    // annotations of Debian's Abseil cannot follow).
    while (idle_.empty() && open_ >= options_.max_connections) {
      if (available_.WaitWithDeadline(&mu_, deadline) &&
          idle_.empty() && open_ >= options_.max_connections) {
        return absl::DeadlineExceededError(
            absl::StrCat(name_, ": every connection busy past the timeout"));
      }
    }
    // Connections the store closed while they sat idle (a restart) are
    // dropped here, so a request is only ever lost to a close that
    // happens while it is in flight.
    while (!idle_.empty()) {
      std::unique_ptr<Connection> c = std::move(idle_.back());
      idle_.pop_back();
      if (!c->Stale()) return c;
      --open_;
    }
    ++open_;
  }
  absl::StatusOr<std::unique_ptr<Connection>> c =
      Connection::Open(options_.connect, deadline);
  if (!c.ok()) {
    absl::MutexLock lock(&mu_);
    --open_;
    available_.Signal();
  }
  return c;
}

void Client::Release(std::unique_ptr<Connection> connection) {
  absl::MutexLock lock(&mu_);
  if (connection->broken()) {
    --open_;
  } else {
    idle_.push_back(std::move(connection));
  }
  available_.Signal();
}

absl::Status Client::ErrorReply(const Reply& reply) const {
  return absl::UnavailableError(
      absl::StrCat(name_, ": answered an error: ", reply.str));
}

void Client::Observe(absl::string_view operation, const absl::Status& status,
                     absl::Time started) const {
  if (observer_) observer_(operation, ResultOf(status), absl::Now() - started);
}

absl::StatusOr<std::vector<Reply>> Client::RoundTrip(
    absl::Span<const Command> commands, absl::Time deadline) {
  absl::StatusOr<std::unique_ptr<Connection>> c = Acquire(deadline);
  if (!c.ok()) return c.status();
  absl::StatusOr<std::vector<Reply>> replies =
      (*c)->Pipeline(commands, deadline);
  Release(std::move(*c));
  return replies;
}

absl::StatusOr<std::vector<Reply>> Client::Checked(
    absl::StatusOr<std::vector<Reply>> replies) const {
  if (!replies.ok()) return replies;
  for (const Reply& r : *replies) {
    if (r.is_error()) return ErrorReply(r);
  }
  return replies;
}

absl::StatusOr<std::vector<Reply>> Client::Pipeline(
    absl::string_view operation, absl::Span<const Command> commands) {
  const absl::Time started = absl::Now();
  absl::StatusOr<std::vector<Reply>> replies =
      Checked(RoundTrip(commands, started + options_.timeout));
  Observe(operation, replies.status(), started);
  if (!replies.ok()) return AsUnavailable(replies.status());
  return replies;
}

absl::StatusOr<Reply> Client::Run(absl::string_view operation,
                                  const Command& command) {
  absl::StatusOr<std::vector<Reply>> r =
      Pipeline(operation, absl::MakeConstSpan(&command, 1));
  if (!r.ok()) return r.status();
  return std::move(r->front());
}

absl::StatusOr<Reply> Client::Eval(const Script& script,
                                   absl::Span<const std::string> keys,
                                   absl::Span<const std::string> args) {
  const absl::Time started = absl::Now();
  const absl::Time deadline = started + options_.timeout;
  const Command eval = EvalShaCommand(script, keys, args);
  absl::StatusOr<std::vector<Reply>> r =
      RoundTrip(absl::MakeConstSpan(&eval, 1), deadline);
  if (r.ok() && IsNoScript(r->front())) {
    const Command load{"SCRIPT", "LOAD", script.source()};
    r = RoundTrip({load, eval}, deadline);
    if (r.ok()) r->erase(r->begin());
  }
  absl::StatusOr<Reply> out = r.ok() ? absl::StatusOr<Reply>(std::move(r->front()))
                                     : absl::StatusOr<Reply>(r.status());
  if (out.ok() && out->is_error()) out = ErrorReply(*out);
  Observe(script.name(), out.status(), started);
  if (!out.ok()) return AsUnavailable(out.status());
  return out;
}

absl::StatusOr<std::vector<Reply>> Client::EvalPipeline(
    absl::string_view operation, absl::Span<const ScriptCall> calls) {
  const absl::Time started = absl::Now();
  const absl::Time deadline = started + options_.timeout;
  std::vector<Command> commands;
  for (const ScriptCall& call : calls) {
    commands.push_back(EvalShaCommand(*call.script, call.keys, call.args));
  }
  absl::StatusOr<std::vector<Reply>> r = RoundTrip(commands, deadline);
  if (r.ok() && std::any_of(r->begin(), r->end(), IsNoScript)) {
    std::vector<Command> again;
    for (const ScriptCall& call : calls) {
      again.push_back({"SCRIPT", "LOAD", call.script->source()});
    }
    again.insert(again.end(), commands.begin(), commands.end());
    r = RoundTrip(again, deadline);
    if (r.ok()) r->erase(r->begin(), r->begin() + calls.size());
  }
  r = Checked(std::move(r));
  Observe(operation, r.status(), started);
  if (!r.ok()) return AsUnavailable(r.status());
  return r;
}

}  // namespace toolgate::redis
