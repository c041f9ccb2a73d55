#include "server/envoy_authz_ask.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace toolgate {
namespace server {
namespace authz_internal {

using envoy::service::auth::v3::AttributeContext;
using envoy::service::auth::v3::CheckRequest;

Headers ReadHeaders(const AttributeContext::HttpRequest& http) {
  Headers headers;
  // Envoy's map holds lower-case names, each once; a name there twice in
  // different case (or again in header_map) keeps every value, joined, as
  // AddHeaders does: never one of them silently.
  for (const auto& [name, value] : http.headers()) {
    std::string& slot = headers[absl::AsciiStrToLower(name)];
    slot = slot.empty() ? value : absl::StrCat(slot, ",", value);
  }
  AddHeaders(http.header_map(), &headers);
  return headers;
}

Ask ReadAsk(const AttributeContext::HttpRequest& http) {
  Ask ask;
  ask.headers = ReadHeaders(http);
  ask.method =
      http.method().empty() ? HeaderOr(ask.headers, ":method") : http.method();
  ask.path = http.path().empty() ? HeaderOr(ask.headers, ":path") : http.path();
  ask.body = http.raw_body().empty() ? http.body() : http.raw_body();
  ask.run_id = HeaderOr(ask.headers, kRunIdHeader);
  ask.run_token = HeaderOr(ask.headers, kRunTokenHeader);
  return ask;
}

absl::StatusOr<std::string> ResolveSnapshot(Engine* engine,
                                            const CheckRequest& request,
                                            const Ask& ask) {
  const auto& ctx = request.attributes().context_extensions();
  auto route = ctx.find(std::string(kSnapshotSetting));
  const std::string header = HeaderOr(ask.headers, kSnapshotHeader);
  std::string ref = route != ctx.end() ? route->second : header;
  if (ref.empty() && !ask.run_id.empty()) return std::string();
  if (ref.empty()) {
    return absl::InvalidArgumentError(
        "no snapshot: the route sets none (toolgate_snapshot) and the request "
        "names neither a run nor a snapshot (x-toolgate-snapshot)");
  }
  auto snapshot = engine->GetSnapshot(ref, "");
  if (!snapshot.ok()) snapshot = engine->GetSnapshot("", ref);
  if (!snapshot.ok()) {
    return absl::NotFoundError("unknown snapshot \"" + ref + "\"");
  }
  if (route != ctx.end() && !header.empty() && header != ref &&
      header != (*snapshot)->id()) {
    return absl::InvalidArgumentError(
        "x-toolgate-snapshot is not the route's snapshot");
  }
  return (*snapshot)->id();
}

}  // namespace authz_internal
}  // namespace server
}  // namespace toolgate
