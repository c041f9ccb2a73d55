#include "core/redis/connection.h"

#include <hiredis/hiredis.h>

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace toolgate::redis {
namespace {

Reply Convert(const redisReply* r) {
  Reply out;
  switch (r->type) {
    case REDIS_REPLY_STRING:
      out.type = Reply::Type::kString;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_STATUS:
      out.type = Reply::Type::kStatus;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ERROR:
      out.type = Reply::Type::kError;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_INTEGER:
      out.type = Reply::Type::kInteger;
      out.integer = r->integer;
      break;
    case REDIS_REPLY_ARRAY:
      out.type = Reply::Type::kArray;
      out.elements.reserve(r->elements);
      for (size_t i = 0; i < r->elements; ++i) {
        out.elements.push_back(Convert(r->element[i]));
      }
      break;
    default:
      out.type = Reply::Type::kNil;
  }
  return out;
}

// RESP's request form, written directly: an array of bulk strings
// ("*N\r\n" then "$LEN\r\nBYTES\r\n" per word). hiredis's
// redisFormatCommandArgv builds the same bytes through sds reallocations,
// about 18,000 instructions for one commit's 20 words (callgrind); this is
// a single reserved string. Replies are still parsed by hiredis's reader.
absl::StatusOr<std::string> Format(absl::Span<const Command> commands) {
  size_t size = 0;
  for (const Command& c : commands) {
    size += 16;
    for (const std::string& word : c) size += word.size() + 24;
  }
  std::string out;
  out.reserve(size);
  // absl's integer formatting: snprintf costs ~650 instructions a number.
  const auto append_header = [&](absl::string_view kind, size_t n) {
    absl::StrAppend(&out, kind, n, "\r\n");
  };
  for (const Command& c : commands) {
    if (c.empty()) return absl::InternalError("an empty Redis command");
    append_header("*", c.size());
    for (const std::string& word : c) {
      append_header("$", word.size());
      out.append(word);
      out.append("\r\n", 2);
    }
  }
  return out;
}

// AUTH, SELECT and a PING in one round trip; the PING tells a store that
// wants a password we do not have.
Command AuthCommand(const ConnectOptions& o) {
  if (o.address.user.empty()) return {"AUTH", o.password};
  return {"AUTH", o.address.user, o.password};
}

absl::Status CheckHello(const ConnectOptions& o, const std::string& name,
                        const std::vector<Reply>& replies) {
  for (const Reply& r : replies) {
    if (!r.is_error()) continue;
    if (absl::StartsWith(r.str, "NOAUTH")) {
      return absl::UnauthenticatedError(absl::StrCat(
          name, ": the store requires a password; set "
                "--state_store_password_file"));
    }
    if (absl::StartsWith(r.str, "WRONGPASS") ||
        absl::StrContains(r.str, "invalid password") ||
        absl::StrContains(r.str, "invalid username-password")) {
      return absl::UnauthenticatedError(absl::StrCat(
          name, ": AUTH refused; check --state_store_password_file",
          o.address.user.empty() ? "" : " and the URL's user"));
    }
    return absl::FailedPreconditionError(
        absl::StrCat(name, ": refused the connection set-up: ", r.str));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Connection>> Connection::Open(
    const ConnectOptions& options, absl::Time deadline) {
  absl::StatusOr<std::unique_ptr<Transport>> t =
      Transport::Open(options.address, options.tls, deadline);
  if (!t.ok()) return t.status();
  const std::string name = (*t)->name();
  std::unique_ptr<Connection> c(new Connection(std::move(*t)));
  std::vector<Command> hello;
  if (!options.password.empty()) hello.push_back(AuthCommand(options));
  if (options.address.db != 0) {
    hello.push_back({"SELECT", absl::StrCat(options.address.db)});
  }
  hello.push_back({"PING"});
  absl::StatusOr<std::vector<Reply>> replies = c->Pipeline(hello, deadline);
  if (!replies.ok()) return replies.status();
  absl::Status s = CheckHello(options, name, *replies);
  if (!s.ok()) return s;
  return c;
}

Connection::Connection(std::unique_ptr<Transport> transport)
    : transport_(std::move(transport)), reader_(redisReaderCreate()) {}

Connection::~Connection() {
  if (reader_ != nullptr) redisReaderFree(static_cast<redisReader*>(reader_));
}

absl::Status Connection::Fail(absl::Status status) {
  broken_ = true;
  return status;
}

absl::StatusOr<std::optional<Reply>> Connection::Parsed() {
  void* raw = nullptr;
  if (redisReaderGetReply(static_cast<redisReader*>(reader_), &raw) !=
      REDIS_OK) {
    return Fail(absl::DataLossError(
        absl::StrCat(transport_->name(), ": unreadable reply")));
  }
  if (raw == nullptr) return std::nullopt;
  Reply reply = Convert(static_cast<redisReply*>(raw));
  freeReplyObject(raw);
  return reply;
}

absl::StatusOr<std::optional<Reply>> Connection::Next(absl::Time deadline) {
  if (broken_) {
    return absl::UnavailableError(absl::StrCat(transport_->name(), ": broken"));
  }
  char buffer[16384];
  for (;;) {
    absl::StatusOr<std::optional<Reply>> reply = Parsed();
    if (!reply.ok() || reply->has_value()) return reply;
    absl::StatusOr<size_t> n = transport_->ReadSome(buffer, sizeof(buffer),
                                                    deadline);
    if (!n.ok()) return Fail(n.status());
    if (*n == 0) return std::nullopt;
    redisReaderFeed(static_cast<redisReader*>(reader_), buffer, *n);
  }
}

absl::Status Connection::Send(absl::Span<const Command> commands,
                              absl::Time deadline) {
  if (broken_) {
    return absl::UnavailableError(absl::StrCat(transport_->name(), ": broken"));
  }
  absl::StatusOr<std::string> bytes = Format(commands);
  if (!bytes.ok()) return bytes.status();
  absl::Status s = transport_->WriteAll(*bytes, deadline);
  if (!s.ok()) return Fail(s);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Reply>> Connection::Pipeline(
    absl::Span<const Command> commands, absl::Time deadline) {
  absl::Status sent = Send(commands, deadline);
  if (!sent.ok()) return sent;
  std::vector<Reply> replies;
  replies.reserve(commands.size());
  while (replies.size() < commands.size()) {
    absl::StatusOr<std::optional<Reply>> reply = Next(deadline);
    if (!reply.ok()) return reply.status();
    if (!reply->has_value()) {
      // The reply may still come: the stream is no longer in step.
      return Fail(absl::DeadlineExceededError(
          absl::StrCat(transport_->name(), ": no answer within the timeout "
                                           "(--state_store_timeout_ms)")));
    }
    replies.push_back(std::move(**reply));
  }
  return replies;
}

absl::StatusOr<Reply> Connection::Run(const Command& command,
                                      absl::Time deadline) {
  absl::StatusOr<std::vector<Reply>> r =
      Pipeline(absl::MakeConstSpan(&command, 1), deadline);
  if (!r.ok()) return r.status();
  return std::move(r->front());
}

}  // namespace toolgate::redis
