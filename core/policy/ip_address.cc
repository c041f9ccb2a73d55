#include "core/policy/ip_address.h"

#include <arpa/inet.h>

#include <cstring>
#include <string>

namespace toolgate::policy {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// One inet_aton part; values above 2^32 - 1 are refused while reading so
// long digit strings cannot wrap.
std::optional<uint64_t> ParsePart(absl::string_view part) {
  if (part.empty()) return std::nullopt;
  int base = 10;
  if (part.size() >= 2 && part[0] == '0' &&
      (part[1] == 'x' || part[1] == 'X')) {
    base = 16;
    part.remove_prefix(2);
  } else if (part.size() >= 2 && part[0] == '0') {
    base = 8;
    part.remove_prefix(1);
  }
  uint64_t value = 0;
  for (char c : part) {
    const int digit = HexValue(c);
    if (digit < 0 || digit >= base) return std::nullopt;
    value = value * base + digit;
    if (value > 0xFFFFFFFFull) return std::nullopt;
  }
  return value;
}

struct Range4 {
  uint32_t base;
  int prefix;
};

// IANA IPv4 Special-Purpose Address Registry entries that are not
// globally reachable, plus multicast and 240/4.
constexpr Range4 kNonPublic4[] = {
    {0x00000000, 8},   // 0.0.0.0/8 "this network"
    {0x0A000000, 8},   // 10/8
    {0x64400000, 10},  // 100.64/10 CGNAT
    {0x7F000000, 8},   // 127/8 loopback
    {0xA9FE0000, 16},  // 169.254/16 link-local (cloud metadata)
    {0xAC100000, 12},  // 172.16/12
    {0xC0000000, 24},  // 192.0.0/24 IETF protocol assignments
    {0xC0000200, 24},  // 192.0.2/24 TEST-NET-1
    {0xC0586300, 24},  // 192.88.99/24 6to4 relay anycast (deprecated)
    {0xC0A80000, 16},  // 192.168/16
    {0xC6120000, 15},  // 198.18/15 benchmarking
    {0xC6336400, 24},  // 198.51.100/24 TEST-NET-2
    {0xCB007100, 24},  // 203.0.113/24 TEST-NET-3
    {0xE0000000, 4},   // 224/4 multicast
    {0xF0000000, 4},   // 240/4 reserved, includes 255.255.255.255
};

uint32_t V4At(const std::array<uint8_t, 16>& a, int offset) {
  return (uint32_t{a[offset]} << 24) | (uint32_t{a[offset + 1]} << 16) |
         (uint32_t{a[offset + 2]} << 8) | uint32_t{a[offset + 3]};
}

bool HasPrefix(const std::array<uint8_t, 16>& a, const uint8_t* prefix,
               int bits) {
  const int bytes = bits / 8;
  if (std::memcmp(a.data(), prefix, bytes) != 0) return false;
  const int rest = bits % 8;
  if (rest == 0) return true;
  const uint8_t mask = static_cast<uint8_t>(0xFF << (8 - rest));
  return (a[bytes] & mask) == (prefix[bytes] & mask);
}

struct Range6 {
  uint8_t prefix[16];
  int bits;
};

// Inside 2000::/3, the ranges that are not globally reachable.
const Range6 kNonPublic6[] = {
    {{0x20, 0x01, 0x00, 0x00}, 23},  // 2001::/23 IETF (Teredo, ORCHID, ...)
    {{0x20, 0x01, 0x0d, 0xb8}, 32},  // 2001:db8::/32 documentation
    {{0x3f, 0xff, 0x00, 0x00}, 20},  // 3fff::/20 documentation
};

}  // namespace

bool EndsInNumber(absl::string_view host) {
  const size_t dot = host.rfind('.');
  absl::string_view last =
      dot == absl::string_view::npos ? host : host.substr(dot + 1);
  if (last.empty()) return false;
  if (last.size() >= 2 && last[0] == '0' &&
      (last[1] == 'x' || last[1] == 'X')) {
    for (char c : last.substr(2)) {
      if (HexValue(c) < 0) return false;
    }
    return true;
  }
  for (char c : last) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

std::optional<uint32_t> ParseIpv4InetAton(absl::string_view text) {
  uint64_t parts[4];
  int count = 0;
  size_t start = 0;
  while (true) {
    if (count == 4) return std::nullopt;
    size_t end = text.find('.', start);
    if (end == absl::string_view::npos) end = text.size();
    // "0x" alone reads as 0, as inet_aton does.
    std::optional<uint64_t> value = ParsePart(text.substr(start, end - start));
    if (!value) return std::nullopt;
    parts[count++] = *value;
    if (end == text.size()) break;
    start = end + 1;
  }
  // All parts but the last are single bytes; the last fills the rest.
  uint64_t address = 0;
  for (int i = 0; i < count - 1; ++i) {
    if (parts[i] > 0xFF) return std::nullopt;
    address |= parts[i] << (8 * (3 - i));
  }
  const int last_bits = 8 * (4 - (count - 1));
  const uint64_t last = parts[count - 1];
  if (last_bits < 32 && last >= (uint64_t{1} << last_bits)) return std::nullopt;
  return static_cast<uint32_t>(address | last);
}

std::optional<std::array<uint8_t, 16>> ParseIpv6(absl::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  const std::string copy(text);  // inet_pton needs a terminated string.
  std::array<uint8_t, 16> out;
  if (inet_pton(AF_INET6, copy.c_str(), out.data()) != 1) return std::nullopt;
  return out;
}

bool IsPublicIpv4(uint32_t address) {
  for (const Range4& r : kNonPublic4) {
    const uint32_t mask = r.prefix == 0 ? 0 : ~uint32_t{0} << (32 - r.prefix);
    if ((address & mask) == r.base) return false;
  }
  return true;
}

bool IsPublicIpv6(const std::array<uint8_t, 16>& a) {
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0,    0,
                                          0, 0, 0, 0, 0xff, 0xff};
  static constexpr uint8_t kNat64[12] = {0x00, 0x64, 0xff, 0x9b};
  static constexpr uint8_t kSixToFour[2] = {0x20, 0x02};
  if (std::memcmp(a.data(), kMapped, 12) == 0) return IsPublicIpv4(V4At(a, 12));
  if (std::memcmp(a.data(), kNat64, 12) == 0) return IsPublicIpv4(V4At(a, 12));
  if (std::memcmp(a.data(), kSixToFour, 2) == 0) {
    return IsPublicIpv4(V4At(a, 2));
  }
  // Global unicast is 2000::/3; everything else (::, ::1, IPv4-compatible,
  // 64:ff9b:1::/48, fc00::/7, fe80::/10, ff00::/8, ...) is not public.
  if ((a[0] & 0xE0) != 0x20) return false;
  for (const Range6& r : kNonPublic6) {
    if (HasPrefix(a, r.prefix, r.bits)) return false;
  }
  return true;
}

}  // namespace toolgate::policy
