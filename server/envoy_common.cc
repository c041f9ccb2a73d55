#include "server/envoy_common.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace toolgate {
namespace server {

void AddHeaders(const envoy::config::core::v3::HeaderMap& map, Headers* out) {
  for (const auto& h : map.headers()) {
    const std::string& value = h.value().empty() ? h.raw_value() : h.value();
    std::string& slot = (*out)[absl::AsciiStrToLower(h.key())];
    slot = slot.empty() ? value : absl::StrCat(slot, ",", value);
  }
}

std::string HeaderOr(const Headers& headers, absl::string_view name,
                     absl::string_view fallback) {
  auto it = headers.find(name);
  return it == headers.end() ? std::string(fallback) : it->second;
}

void SetHeader(absl::string_view name, absl::string_view value,
               envoy::config::core::v3::HeaderValueOption* option) {
  option->mutable_header()->set_key(std::string(name));
  option->mutable_header()->set_value(std::string(value));
  option->set_append_action(
      envoy::config::core::v3::HeaderValueOption::OVERWRITE_IF_EXISTS_OR_ADD);
}

mesh::RpcError ErrorForStatus(const absl::Status& status) {
  return mesh::ErrorForEngineStatus(status);
}

}  // namespace server
}  // namespace toolgate
