#include "core/redis/address.h"

#include <memory>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/policy/curl_url_api.h"

namespace toolgate::redis {
namespace {

absl::Status Refuse(absl::string_view url, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("--state_store=", url, ": ", why));
}

// One part of a parsed URL; nullopt when absent.
std::optional<std::string> Part(const policy::CurlUrlFunctions& api,
                                CURLU* u, CURLUPart part,
                                unsigned int flags = 0) {
  char* value = nullptr;
  if (api.get(u, part, &value, flags) != CURLUE_OK || value == nullptr) {
    return std::nullopt;
  }
  std::string out(value);
  api.free(value);
  return out;
}

absl::StatusOr<Address> ParseUnix(absl::string_view url) {
  Address a;
  a.transport = Address::Transport::kUnix;
  a.path = std::string(url.substr(strlen("unix://")));
  if (a.path.empty() || a.path[0] != '/') {
    return Refuse(url, "a unix socket is unix:///ABSOLUTE/PATH");
  }
  if (a.path.find_first_of("?#") != std::string::npos) {
    return Refuse(url, "a socket path takes no query or fragment");
  }
  return a;
}

// Port and database from their text; both are optional.
absl::Status ReadNumbers(absl::string_view url,
                         const std::optional<std::string>& port,
                         const std::optional<std::string>& path, Address* a) {
  if (port.has_value() &&
      (!absl::SimpleAtoi(*port, &a->port) || a->port < 1 || a->port > 65535)) {
    return Refuse(url, "the port must be 1 to 65535");
  }
  // Both arms views: "*path : \"\"" would make a temporary std::string.
  absl::string_view db =
      path.has_value() ? absl::string_view(*path) : absl::string_view();
  if (absl::StartsWith(db, "/")) db.remove_prefix(1);
  if (!db.empty() && (db.find_first_not_of("0123456789") != db.npos ||
                      !absl::SimpleAtoi(db, &a->db) || db.size() > 5)) {
    return Refuse(url, "the path is a database number (/0, /1, ...)");
  }
  return absl::OkStatus();
}

}  // namespace

std::string Address::ToString() const {
  if (transport == Transport::kUnix) return absl::StrCat("unix://", path);
  const bool v6 = host.find(':') != std::string::npos;
  return absl::StrCat(transport == Transport::kTls ? "rediss" : "redis",
                      "://", user.empty() ? "" : absl::StrCat(user, "@"),
                      v6 ? "[" : "", host, v6 ? "]" : "", ":", port, "/", db);
}

absl::StatusOr<Address> ParseAddress(absl::string_view url) {
  if (absl::StartsWith(url, "unix://")) return ParseUnix(url);
  Address a;
  if (absl::StartsWith(url, "rediss://")) {
    a.transport = Address::Transport::kTls;
  } else if (!absl::StartsWith(url, "redis://")) {
    return Refuse(url, "use memory, redis://, rediss:// or unix://");
  }
  absl::StatusOr<const policy::CurlUrlFunctions*> api = policy::CurlUrlApi();
  if (!api.ok()) return api.status();
  const policy::CurlUrlFunctions& f = **api;
  std::unique_ptr<CURLU, void (*)(CURLU*)> u(f.url(), f.cleanup);
  if (u == nullptr ||
      f.set(u.get(), CURLUPART_URL, std::string(url).c_str(),
            CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK) {
    return Refuse(url, "not a URL");
  }
  if (Part(f, u.get(), CURLUPART_PASSWORD).has_value()) {
    return Refuse(url, "a password in the URL is refused (it would show in "
                       "argv and logs); use --state_store_password_file");
  }
  if (Part(f, u.get(), CURLUPART_QUERY).has_value() ||
      Part(f, u.get(), CURLUPART_FRAGMENT).has_value() ||
      Part(f, u.get(), CURLUPART_OPTIONS).has_value()) {
    return Refuse(url, "no query, fragment or options are read");
  }
  std::optional<std::string> host = Part(f, u.get(), CURLUPART_HOST);
  if (!host.has_value() || host->empty()) return Refuse(url, "no host");
  if (host->size() > 2 && host->front() == '[') {
    *host = host->substr(1, host->size() - 2);
  }
  a.host = *host;
  a.user = Part(f, u.get(), CURLUPART_USER, CURLU_URLDECODE).value_or("");
  absl::Status numbers = ReadNumbers(url, Part(f, u.get(), CURLUPART_PORT),
                                     Part(f, u.get(), CURLUPART_PATH), &a);
  if (!numbers.ok()) return numbers;
  return a;
}

}  // namespace toolgate::redis
