// Argument constraints of issue 12 (`policy.arguments`): pure checks of one
// string argument against one rule. No gRPC, no I/O, no DNS.
//
// Each Check* returns std::nullopt when the value passes and otherwise a
// violation whose code is public contract:
//   path        path_invalid, path_outside_root
//   url         url_invalid, url_scheme_not_allowed, url_host_not_allowed,
//               url_port_not_allowed, url_userinfo, url_private_address
//   shell_arg   shell_metacharacter, option_injection
//   identifier  identifier_invalid
// Absence of a signal never passes: anything a checker cannot classify is
// refused.
//
// toolgate does not resolve DNS. A url rule without `hosts` refuses local
// names and private addresses in every spelling, but a public name whose
// DNS record points inside (DNS rebinding, a wildcard record) passes here:
// deployments that let tools fetch arbitrary URLs need an egress policy
// (proxy or network policy) as well. A `hosts` list is the precise tool.
//
// Thread-safety: pure functions; an IdentifierRule is immutable after
// Compile and may be shared between threads.
#ifndef TOOLGATE_CORE_POLICY_ARGUMENT_CHECKS_H_
#define TOOLGATE_CORE_POLICY_ARGUMENT_CHECKS_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/policy/argument_violation.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace toolgate::policy {

// path {root, allow_absolute}. The value is resolved against `root`
// lexically, segment by segment (`/srv/reportsX` is outside `/srv/reports`);
// a `..` that would leave the root at any point is refused even if a later
// segment comes back, because the filesystem may resolve symlinks between.
//   path_invalid: empty, NUL or control bytes, backslash, any %XX escape
//     (never decoded), a leading `~`, an absolute path when
//     allow_absolute is false, or an invalid root (fail closed).
//   path_outside_root: resolves outside root (including to its parent);
//     an absolute path (allow_absolute) not inside root.
// The root itself (".", "a/..") is inside. `a/b/../c.txt`, `..hidden`,
// `dir/sub/` pass.
struct PathRule {
  std::string root;  // Absolute; see ValidatePathRule.
  bool allow_absolute = false;
};
std::optional<ArgumentViolation> CheckPath(absl::string_view value,
                                           const PathRule& rule);

// url {schemes, hosts?, ports?}, parsed by libcurl's URL API. Known schemes
// (with their default ports): http 80, https 443, ws 80, wss 443, ftp 21,
// ftps 990, sftp 22. The value must spell `scheme://authority` itself;
// whitespace, control bytes, backslashes and `%` in the authority are
// url_invalid (clients disagree on those). Host: lower-cased, one trailing
// dot dropped; `*.example.org` matches subdomains only. Non-ASCII hosts
// (IDN) are in no list: url_host_not_allowed when `hosts` is given,
// url_invalid otherwise (spell them as xn-- punycode). IPv4 literals in any
// inet_aton spelling (2130706433, 0x7f.1, 0177.0.0.1, 127.1) and IPv6
// literals are compared by address. Without `hosts`: single-label names,
// localhost, *.localhost, *.local, *.internal (and other special-use
// suffixes) and every non-public address are url_private_address. Ports:
// the effective port (explicit or the scheme's default) must be in `ports`,
// or be the scheme's default when `ports` is empty.
struct UrlRule {
  std::vector<std::string> schemes;  // Lower-case names from the list above.
  std::vector<std::string> hosts;    // Names, `*.suffix`, IP literals.
  std::vector<int> ports;            // 1..65535.
};
std::optional<ArgumentViolation> CheckUrl(absl::string_view value,
                                          const UrlRule& rule);

// shell_arg: only A-Z a-z 0-9 and `_ - . / + , : = @ %` (not a leading `=`,
// which zsh expands); empty and non-ASCII values are refused too
// (shell_metacharacter). A leading `-` is option_injection.
std::optional<ArgumentViolation> CheckShellArg(absl::string_view value);

// identifier {pattern}: the whole value must match (RE2, UTF-8). Values
// that are not valid UTF-8 never match.
class IdentifierRule {
 public:
  static absl::StatusOr<IdentifierRule> Compile(absl::string_view pattern);

  const std::string& pattern() const { return pattern_; }
  const re2::RE2& regex() const { return *regex_; }

 private:
  IdentifierRule(std::string pattern, std::shared_ptr<const re2::RE2> regex)
      : pattern_(std::move(pattern)), regex_(std::move(regex)) {}

  std::string pattern_;
  std::shared_ptr<const re2::RE2> regex_;  // Shared: copies stay cheap.
};
std::optional<ArgumentViolation> CheckIdentifier(absl::string_view value,
                                                 const IdentifierRule& rule);

// Rule validation at manifest load; INVALID_ARGUMENT names the member.
// Path: root non-empty, absolute, no `.`/`..` segments, no backslash,
// control bytes, `%` or leading `~`.
absl::Status ValidatePathRule(const PathRule& rule);
// Url: schemes non-empty and known; hosts valid names, `*.suffix` patterns
// (suffix with a dot) or IP literals (dotted IPv4, [IPv6]); ports in
// 1..65535. An empty `hosts` or `ports` vector means "not given": the
// manifest loader must refuse an explicit empty list (`"hosts": []`) itself,
// since here it would widen the rule to every public host.
absl::Status ValidateUrlRule(const UrlRule& rule);

}  // namespace toolgate::policy

#endif  // TOOLGATE_CORE_POLICY_ARGUMENT_CHECKS_H_
