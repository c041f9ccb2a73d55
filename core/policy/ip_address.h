// IP literal parsing and classification for the url argument check.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_POLICY_IP_ADDRESS_H_
#define TOOLGATE_CORE_POLICY_IP_ADDRESS_H_

#include <array>
#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"

namespace toolgate::policy {

// True when WHATWG's URL standard would treat `host` (lower-case, trailing
// dot already dropped) as an IPv4 literal: its last label is all decimal
// digits, or "0x" followed by hex digits. Such a host is an address or
// invalid, never a DNS name.
bool EndsInNumber(absl::string_view host);

// `text` as inet_aton(3) reads it, but strictly: 1 to 4 parts separated by
// '.', each decimal, octal (leading 0) or hex (0x/0X, possibly with no
// digits, meaning 0); the last part fills the remaining bytes (a, a.b,
// a.b.c, a.b.c.d). nullopt on anything else (empty parts, overflow, digits
// 8/9 in octal, trailing bytes). Host byte order.
std::optional<uint32_t> ParseIpv4InetAton(absl::string_view text);

// `text` (no brackets, no zone) as an IPv6 address (inet_pton).
std::optional<std::array<uint8_t, 16>> ParseIpv6(absl::string_view text);

// Whether an address is globally routable unicast: false for unspecified,
// loopback, private (RFC 1918), CGNAT, link-local, multicast, broadcast,
// documentation, benchmarking, IETF-reserved and future-use ranges. IPv6
// forms that carry an IPv4 address (mapped, NAT64 64:ff9b::/96, 6to4) are
// judged by that address; IPv4-compatible, Teredo and local NAT64 are never
// public. Outside 2000::/3 nothing is public.
bool IsPublicIpv4(uint32_t address);
bool IsPublicIpv6(const std::array<uint8_t, 16>& address);

}  // namespace toolgate::policy

#endif  // TOOLGATE_CORE_POLICY_IP_ADDRESS_H_
