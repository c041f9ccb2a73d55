// What the compiler and the registry share to name a place in a schema
// document and to refuse it.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_SCHEMA_INTERNAL_REFUSE_H_
#define TOOLGATE_CORE_SCHEMA_INTERNAL_REFUSE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace toolgate {
namespace schema {
namespace internal {

// INVALID_ARGUMENT "schema refused at <where>: <why>" ("(root)" for "").
absl::Status Refuse(absl::string_view where, absl::string_view why);

// `ptr` with one more reference token, escaped (RFC 6901).
std::string Join(const std::string& ptr, absl::string_view token);

}  // namespace internal
}  // namespace schema
}  // namespace toolgate

#endif  // TOOLGATE_CORE_SCHEMA_INTERNAL_REFUSE_H_
