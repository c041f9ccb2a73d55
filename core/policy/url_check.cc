// url: libcurl's URL API parses; toolgate checks what it found, plus the
// raw spelling where clients are known to disagree.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "core/policy/argument_checks.h"
#include "core/policy/curl_url_api.h"
#include "core/policy/ip_address.h"

namespace toolgate::policy {
namespace {

constexpr size_t kMaxUrlBytes = 8192;

struct KnownScheme {
  absl::string_view name;
  int default_port;
};
constexpr KnownScheme kKnownSchemes[] = {
    {"http", 80}, {"https", 443}, {"ws", 80},   {"wss", 443},
    {"ftp", 21},  {"ftps", 990},  {"sftp", 22},
};

const KnownScheme* FindScheme(absl::string_view name) {
  for (const KnownScheme& s : kKnownSchemes) {
    if (absl::EqualsIgnoreCase(s.name, name)) return &s;
  }
  return nullptr;
}

// Names that never reach the public internet (RFC 6761, 6762, 8375 and
// the customary private suffixes). Compared on the lower-cased host.
constexpr absl::string_view kLocalNames[] = {"localhost"};
constexpr absl::string_view kLocalSuffixes[] = {
    ".localhost", ".local",    ".internal", ".localdomain", ".home.arpa",
    ".lan",       ".intranet", ".corp",     ".invalid",     ".test",
};

bool IsNameByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.';
}

// A lower-case ASCII DNS name: labels of 1..63 bytes, at most 253 in all.
bool IsDnsName(absl::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  size_t label = 0;
  for (char c : name) {
    if (!IsNameByte(c)) return false;
    if (c == '.') {
      if (label == 0) return false;
      label = 0;
    } else if (++label > 63) {
      return false;
    }
  }
  return label > 0;
}

absl::string_view DropTrailingDot(absl::string_view host) {
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  return host;
}

// What the host of a URL is, after lower-casing and dropping one dot.
struct Host {
  enum Kind { kInvalid, kNonAscii, kName, kIpv4, kIpv6 } kind = kInvalid;
  std::string name;  // kName
  uint32_t v4 = 0;
  std::array<uint8_t, 16> v6{};
};

Host ClassifyHost(absl::string_view raw) {
  Host h;
  if (!raw.empty() && raw.front() == '[') {
    if (raw.size() < 2 || raw.back() != ']') return h;
    std::optional<std::array<uint8_t, 16>> v6 =
        ParseIpv6(raw.substr(1, raw.size() - 2));
    if (!v6) return h;
    h.kind = Host::kIpv6;
    h.v6 = *v6;
    return h;
  }
  for (char c : raw) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      h.kind = Host::kNonAscii;
      return h;
    }
  }
  h.name = absl::AsciiStrToLower(DropTrailingDot(raw));
  // curl rewrites most inet_aton spellings to dotted decimal but not all
  // (a trailing dot, overflow): anything WHATWG reads as a number is an
  // address by our own strict parser, or invalid, never a name.
  if (EndsInNumber(h.name)) {
    std::optional<uint32_t> v4 = ParseIpv4InetAton(h.name);
    if (v4) {
      h.kind = Host::kIpv4;
      h.v4 = *v4;
    }
    return h;
  }
  if (IsDnsName(h.name)) h.kind = Host::kName;
  return h;
}

bool MatchesEntry(const Host& host, absl::string_view entry) {
  entry = DropTrailingDot(entry);
  switch (host.kind) {
    case Host::kName:
      if (absl::StartsWith(entry, "*.")) {
        const absl::string_view suffix = entry.substr(1);  // ".example.org"
        return host.name.size() > suffix.size() &&
               absl::EndsWithIgnoreCase(host.name, suffix);
      }
      return absl::EqualsIgnoreCase(host.name, entry);
    case Host::kIpv4: {
      if (!EndsInNumber(entry)) return false;
      std::optional<uint32_t> v4 = ParseIpv4InetAton(entry);
      return v4 && *v4 == host.v4;
    }
    case Host::kIpv6: {
      if (entry.size() < 2 || entry.front() != '[') return false;
      std::optional<std::array<uint8_t, 16>> v6 =
          ParseIpv6(entry.substr(1, entry.size() - 2));
      return v6 && *v6 == host.v6;
    }
    default:
      return false;
  }
}

bool IsLocalName(absl::string_view name) {
  if (name.find('.') == absl::string_view::npos) return true;  // Search list.
  for (absl::string_view n : kLocalNames) {
    if (name == n) return true;
  }
  for (absl::string_view s : kLocalSuffixes) {
    if (absl::EndsWith(name, s)) return true;
  }
  return false;
}

ArgumentViolation Violation(absl::string_view code, absl::string_view value,
                            absl::string_view why) {
  return MakeViolation(code, absl::StrCat("url ", QuoteValue(value), " ", why));
}

// A parsed URL and the API that parsed it.
class CurlUrl {
 public:
  explicit CurlUrl(const CurlUrlFunctions& api) : api_(api), url_(api.url()) {}
  ~CurlUrl() {
    if (url_ != nullptr) api_.cleanup(url_);
  }
  CurlUrl(const CurlUrl&) = delete;
  CurlUrl& operator=(const CurlUrl&) = delete;

  bool ok() const { return url_ != nullptr; }
  bool Set(const std::string& value) {
    return api_.set(url_, CURLUPART_URL, value.c_str(),
                    CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK;
  }
  std::optional<std::string> Get(CURLUPart part) const {
    char* out = nullptr;
    if (api_.get(url_, part, &out, 0) != CURLUE_OK || out == nullptr) {
      return std::nullopt;
    }
    std::string s(out);
    api_.free(out);
    return s;
  }

 private:
  const CurlUrlFunctions& api_;
  CURLU* const url_;
};

// Refusals that need only the raw bytes; sets `authority` to the text
// between "scheme://" and the first '/', '?' or '#'.
std::optional<ArgumentViolation> CheckRaw(absl::string_view value,
                                          const UrlRule& rule,
                                          const KnownScheme** scheme,
                                          absl::string_view* authority) {
  if (value.size() > kMaxUrlBytes) {
    return Violation("url_invalid", value,
                     absl::StrCat("is longer than ", kMaxUrlBytes, " bytes"));
  }
  for (char ch : value) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c == 0x7f || c == '\\') {
      return Violation("url_invalid", value,
                       "contains whitespace, a control character or a "
                       "backslash; percent-encode them");
    }
  }
  const size_t sep = value.find("://");
  if (sep == absl::string_view::npos || sep == 0) {
    return Violation("url_invalid", value,
                     "is not an absolute URL; write scheme://host/path");
  }
  const absl::string_view scheme_name = value.substr(0, sep);
  bool listed = false;
  for (const std::string& s : rule.schemes) {
    listed = listed || absl::EqualsIgnoreCase(s, scheme_name);
  }
  *scheme = FindScheme(scheme_name);
  if (!listed || *scheme == nullptr) {
    return Violation(
        "url_scheme_not_allowed", value,
        absl::StrCat("uses scheme ", QuoteValue(scheme_name),
                     "; allowed: ", absl::StrJoin(rule.schemes, ", ")));
  }
  absl::string_view rest = value.substr(sep + 3);
  *authority = rest.substr(0, rest.find_first_of("/?#"));
  if (authority->find('@') != absl::string_view::npos) {
    return Violation("url_userinfo", value,
                     "carries credentials (user@ or user:password@); remove "
                     "them, credentials never go in tool arguments");
  }
  if (authority->find('%') != absl::string_view::npos) {
    return Violation("url_invalid", value,
                     "has a percent-encoded host; write the host plainly");
  }
  if (authority->empty()) return Violation("url_invalid", value, "has no host");
  return std::nullopt;
}

std::optional<ArgumentViolation> CheckHost(absl::string_view value,
                                           const Host& host,
                                           const UrlRule& rule) {
  if (host.kind == Host::kInvalid) {
    return Violation("url_invalid", value, "has an invalid host");
  }
  if (!rule.hosts.empty()) {
    for (const std::string& entry : rule.hosts) {
      if (MatchesEntry(host, entry)) return std::nullopt;
    }
    return Violation("url_host_not_allowed", value,
                     absl::StrCat("has a host that is not allowed; allowed: ",
                                  absl::StrJoin(rule.hosts, ", ")));
  }
  if (host.kind == Host::kNonAscii) {
    return Violation("url_invalid", value,
                     "has a non-ASCII host; write it in punycode (xn--)");
  }
  const bool local = host.kind == Host::kName   ? IsLocalName(host.name)
                     : host.kind == Host::kIpv4 ? !IsPublicIpv4(host.v4)
                                                : !IsPublicIpv6(host.v6);
  if (local) {
    return Violation("url_private_address", value,
                     "points to a local name or a private, loopback, "
                     "link-local or reserved address; only public hosts are "
                     "allowed");
  }
  return std::nullopt;
}

}  // namespace

std::optional<ArgumentViolation> CheckUrl(absl::string_view value,
                                          const UrlRule& rule) {
  const KnownScheme* scheme = nullptr;
  absl::string_view authority;
  if (auto v = CheckRaw(value, rule, &scheme, &authority)) return v;

  // Loaded when the rule was (ValidateUrlRule); unparsed is refused.
  absl::StatusOr<const CurlUrlFunctions*> api = CurlUrlApi();
  if (!api.ok()) return Violation("url_invalid", value, "could not be parsed");
  CurlUrl url(**api);
  if (!url.ok()) return Violation("url_invalid", value, "could not be parsed");
  if (!url.Set(std::string(value))) {
    return Violation("url_invalid", value, "is not a valid URL");
  }
  if (url.Get(CURLUPART_USER) || url.Get(CURLUPART_PASSWORD) ||
      url.Get(CURLUPART_OPTIONS)) {
    return Violation("url_userinfo", value, "carries credentials; remove them");
  }
  std::optional<std::string> raw_host = url.Get(CURLUPART_HOST);
  if (!raw_host || raw_host->empty() || url.Get(CURLUPART_ZONEID)) {
    return Violation("url_invalid", value, "has no valid host");
  }
  if (auto v = CheckHost(value, ClassifyHost(*raw_host), rule)) return v;

  int port = scheme->default_port;
  if (std::optional<std::string> p = url.Get(CURLUPART_PORT)) {
    if (!absl::SimpleAtoi(*p, &port)) {
      return Violation("url_invalid", value, "has an invalid port");
    }
  }
  const bool port_ok = rule.ports.empty()
                           ? port == scheme->default_port
                           : std::find(rule.ports.begin(), rule.ports.end(),
                                       port) != rule.ports.end();
  if (!port_ok) {
    return Violation(
        "url_port_not_allowed", value,
        rule.ports.empty()
            ? absl::StrCat("uses port ", port, "; only the scheme's default ",
                           scheme->default_port, " is allowed")
            : absl::StrCat("uses port ", port,
                           "; allowed: ", absl::StrJoin(rule.ports, ", ")));
  }
  return std::nullopt;
}

namespace {

absl::Status ValidateHostEntry(size_t i, absl::string_view entry) {
  const auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("url rule: hosts[", i, "] ", QuoteValue(entry), " ", why));
  };
  if (entry.empty()) return bad("is empty");
  if (entry.front() == '[') {
    if (entry.size() < 2 || entry.back() != ']' ||
        !ParseIpv6(entry.substr(1, entry.size() - 2))) {
      return bad("is not a valid [IPv6] literal");
    }
    return absl::OkStatus();
  }
  for (char c : entry) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      return bad("is not ASCII; write the name in punycode (xn--)");
    }
  }
  std::string name = absl::AsciiStrToLower(DropTrailingDot(entry));
  if (absl::StartsWith(name, "*.")) {
    name.erase(0, 2);
    if (name.find('.') == std::string::npos || !IsDnsName(name) ||
        EndsInNumber(name)) {
      return bad("must be *. followed by a domain of two or more labels");
    }
    return absl::OkStatus();
  }
  if (EndsInNumber(name)) {
    std::optional<uint32_t> v4 = ParseIpv4InetAton(name);
    if (!v4 || name != absl::StrCat(*v4 >> 24, ".", (*v4 >> 16) & 0xFF, ".",
                                    (*v4 >> 8) & 0xFF, ".", *v4 & 0xFF)) {
      return bad("must be an IPv4 address in dotted decimal (a.b.c.d)");
    }
    return absl::OkStatus();
  }
  if (!IsDnsName(name)) return bad("is not a valid host name or pattern");
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateUrlRule(const UrlRule& rule) {
  if (absl::StatusOr<const CurlUrlFunctions*> api = CurlUrlApi(); !api.ok()) {
    return api.status();
  }
  if (rule.schemes.empty()) {
    return absl::InvalidArgumentError("url rule: schemes is empty");
  }
  for (size_t i = 0; i < rule.schemes.size(); ++i) {
    const KnownScheme* s = FindScheme(rule.schemes[i]);
    if (s == nullptr || s->name != rule.schemes[i]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "url rule: schemes[", i, "] ", QuoteValue(rule.schemes[i]),
          " is not a known lower-case scheme (http, https, ws, wss, ftp, "
          "ftps, sftp)"));
    }
  }
  for (size_t i = 0; i < rule.hosts.size(); ++i) {
    if (absl::Status s = ValidateHostEntry(i, rule.hosts[i]); !s.ok()) {
      return s;
    }
  }
  for (size_t i = 0; i < rule.ports.size(); ++i) {
    if (rule.ports[i] < 1 || rule.ports[i] > 65535) {
      return absl::InvalidArgumentError(absl::StrCat(
          "url rule: ports[", i, "] ", rule.ports[i], " is outside 1..65535"));
    }
  }
  return absl::OkStatus();
}

}  // namespace toolgate::policy
