// Reads the array a script answered, position by position, remembering
// whether every read found what it expected: a reply of the wrong shape
// is the store's fault and fails closed (UNAVAILABLE naming the store and
// the script), never a default value read as a decision.
//
// Thread-compatible.
#ifndef TOOLGATE_CORE_STATE_REDIS_REPLY_H_
#define TOOLGATE_CORE_STATE_REDIS_REPLY_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/redis/client.h"

namespace toolgate {
namespace state {

// The store answered `operation` in a shape its caller does not expect.
inline absl::Status UnexpectedReply(const redis::Client& client,
                                    absl::string_view operation) {
  return absl::UnavailableError(
      absl::StrCat(client.name(), ": unexpected reply to ", operation));
}

class ReplyReader {
 public:
  ReplyReader(const redis::Reply& reply, const redis::Client& client,
              absl::string_view operation)
      : reply_(reply), client_(client), operation_(operation) {}

  // Element 0 (a script's status word), or "" if there is none.
  std::string Head() const {
    const redis::Reply* e = At(0, redis::Reply::Type::kString);
    return e == nullptr ? "" : e->str;
  }
  std::string String(size_t i) const {
    const redis::Reply* e = At(i, redis::Reply::Type::kString);
    if (e == nullptr) ok_ = false;
    return e == nullptr ? "" : e->str;
  }
  int64_t Integer(size_t i) const {
    const redis::Reply* e = At(i, redis::Reply::Type::kInteger);
    if (e == nullptr) ok_ = false;
    return e == nullptr ? 0 : e->integer;
  }
  const redis::Reply* Element(size_t i) const {
    return i < reply_.elements.size() ? &reply_.elements[i] : nullptr;
  }

  // Whether every String/Integer read found its type.
  bool ok() const { return ok_; }
  absl::Status Unexpected() const {
    return UnexpectedReply(client_, operation_);
  }

 private:
  const redis::Reply* At(size_t i, redis::Reply::Type type) const {
    if (reply_.type != redis::Reply::Type::kArray ||
        i >= reply_.elements.size() || reply_.elements[i].type != type) {
      return nullptr;
    }
    return &reply_.elements[i];
  }

  const redis::Reply& reply_;
  const redis::Client& client_;
  const std::string operation_;
  mutable bool ok_ = true;
};

}  // namespace state
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STATE_REDIS_REPLY_H_
