#include "core/schema/internal/refuse.h"

#include "absl/strings/str_cat.h"
#include "core/json/strict_json.h"

namespace toolgate {
namespace schema {
namespace internal {

absl::Status Refuse(absl::string_view where, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("schema refused at ", where.empty() ? "(root)" : where,
                   ": ", why));
}

std::string Join(const std::string& ptr, absl::string_view token) {
  return absl::StrCat(ptr, "/", EscapePointerToken(token));
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
