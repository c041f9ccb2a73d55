#include "core/schema/internal/format.h"

#include <cctype>
#include <cstdlib>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "core/schema/internal/regex.h"

namespace toolgate {
namespace schema {
namespace internal {
namespace {

bool Digits(absl::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(s[i]))) return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// RFC 3339 full-date.
bool Date(absl::string_view s) {
  int y, m, d;
  if (s.size() != 10 || s[4] != '-' || s[7] != '-' || !Digits(s, 0, 4, &y) ||
      !Digits(s, 5, 2, &m) || !Digits(s, 8, 2, &d)) {
    return false;
  }
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= kDays[m - 1] + (m == 2 && IsLeap(y) ? 1 : 0);
}

// RFC 3339 full-time: HH:MM:SS[.frac](Z|+HH:MM|-HH:MM).
bool Time(absl::string_view s) {
  int h, m, sec;
  if (s.size() < 9 || s[2] != ':' || s[5] != ':' || !Digits(s, 0, 2, &h) ||
      !Digits(s, 3, 2, &m) || !Digits(s, 6, 2, &sec)) {
    return false;
  }
  size_t i = 8;
  if (i < s.size() && s[i] == '.') {
    const size_t start = ++i;
    while (i < s.size() && absl::ascii_isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == start) return false;
  }
  if (i >= s.size()) return false;
  int off_h = 0, off_m = 0, sign = 0;
  if (s[i] == 'Z' || s[i] == 'z') {
    if (i + 1 != s.size()) return false;
  } else if (s[i] == '+' || s[i] == '-') {
    sign = s[i] == '+' ? 1 : -1;
    if (s.size() != i + 6 || s[i + 3] != ':' || !Digits(s, i + 1, 2, &off_h) ||
        !Digits(s, i + 4, 2, &off_m) || off_h > 23 || off_m > 59) {
      return false;
    }
  } else {
    return false;
  }
  if (h > 23 || m > 59 || sec > 60) return false;
  if (sec == 60) {  // Leap second: only at 23:59:60 UTC.
    int utc = h * 60 + m - sign * (off_h * 60 + off_m);
    utc = ((utc % 1440) + 1440) % 1440;
    return utc == 23 * 60 + 59;
  }
  return true;
}

bool DateTime(absl::string_view s) {
  if (s.size() < 11 || (s[10] != 'T' && s[10] != 't')) return false;
  return Date(s.substr(0, 10)) && Time(s.substr(11));
}

// ISO 8601 duration as RFC 3339 appendix A gives it.
bool Duration(absl::string_view s) {
  if (s.size() < 2 || s[0] != 'P') return false;
  const std::string order_date = "YMD", order_time = "HMS";
  bool in_time = false, any = false, time_any = false;
  size_t last = 0;  // Position in the expected order.
  size_t i = 1;
  if (s.substr(1).find('W') != absl::string_view::npos) {
    // PnW only.
    size_t j = 1;
    while (j < s.size() && absl::ascii_isdigit(static_cast<unsigned char>(s[j]))) ++j;
    return j > 1 && j + 1 == s.size() && s[j] == 'W';
  }
  while (i < s.size()) {
    if (s[i] == 'T') {
      if (in_time) return false;
      in_time = true;
      last = 0;
      ++i;
      continue;
    }
    const size_t start = i;
    while (i < s.size() && absl::ascii_isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == start || i >= s.size()) return false;
    const std::string& order = in_time ? order_time : order_date;
    const size_t pos = order.find(s[i]);
    if (pos == std::string::npos || pos < last) return false;
    last = pos + 1;
    any = true;
    if (in_time) time_any = true;
    ++i;
  }
  return any && (!in_time || time_any);
}

bool Ipv4(absl::string_view s) {
  std::vector<absl::string_view> parts = absl::StrSplit(s, '.');
  if (parts.size() != 4) return false;
  for (absl::string_view p : parts) {
    if (p.empty() || p.size() > 3 || (p.size() > 1 && p[0] == '0')) return false;
    int v;
    if (!Digits(p, 0, p.size(), &v) || v > 255) return false;
  }
  return true;
}

bool Ipv6(absl::string_view s) {
  if (s.empty() || s.size() > 45) return false;
  const size_t dc = s.find("::");
  if (dc != absl::string_view::npos &&
      s.find("::", dc + 1) != absl::string_view::npos) {
    return false;
  }
  int groups = 0;
  std::vector<absl::string_view> parts = absl::StrSplit(s, ':');
  for (size_t i = 0; i < parts.size(); ++i) {
    absl::string_view p = parts[i];
    if (p.empty()) continue;  // Part of "::" (validated by counting below).
    if (i + 1 == parts.size() && p.find('.') != absl::string_view::npos) {
      if (!Ipv4(p)) return false;
      groups += 2;
      continue;
    }
    if (p.size() > 4) return false;
    for (char c : p) {
      if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return false;
    }
    ++groups;
  }
  // Empty parts are only legal as the "::" (and at the ends next to it).
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!parts[i].empty()) continue;
    const bool at_edge = i == 0 || i + 1 == parts.size();
    if (dc == absl::string_view::npos) return false;
    if (at_edge && s.size() > 2 && !(i == 0 && s.substr(0, 2) == "::") &&
        !(i + 1 == parts.size() && s.substr(s.size() - 2) == "::")) {
      return false;
    }
  }
  return dc == absl::string_view::npos ? groups == 8 : groups <= 7;
}

bool Hostname(absl::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  if (s.back() == '.') s.remove_suffix(1);
  for (absl::string_view label : absl::StrSplit(s, '.')) {
    if (label.empty() || label.size() > 63 || label.front() == '-' ||
        label.back() == '-') {
      return false;
    }
    for (char c : label) {
      if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-') {
        return false;
      }
    }
  }
  return true;
}

bool Email(absl::string_view s) {
  const size_t at = s.rfind('@');
  if (at == absl::string_view::npos || at == 0 || at > 64) return false;
  absl::string_view local = s.substr(0, at), domain = s.substr(at + 1);
  if (local.size() >= 2 && local.front() == '"' && local.back() == '"') {
    for (char c : local.substr(1, local.size() - 2)) {
      if (static_cast<unsigned char>(c) < 0x20) return false;
    }
  } else {
    if (local.front() == '.' || local.back() == '.' ||
        local.find("..") != absl::string_view::npos) {
      return false;
    }
    static constexpr absl::string_view kAtext = "!#$%&'*+-/=?^_`{|}~.";
    for (char c : local) {
      if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) &&
          kAtext.find(c) == absl::string_view::npos) {
        return false;
      }
    }
  }
  if (domain.size() > 2 && domain.front() == '[' && domain.back() == ']') {
    absl::string_view lit = domain.substr(1, domain.size() - 2);
    if (lit.substr(0, 5) == "IPv6:") return Ipv6(lit.substr(5));
    return Ipv4(lit);
  }
  return Hostname(domain);
}

bool UriChars(absl::string_view s) {
  static constexpr absl::string_view kAllowed =
      "-._~:/?#[]@!$&'()*+,;=";
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '%') {
      if (i + 2 >= s.size()) return false;
      if (!absl::ascii_isxdigit(static_cast<unsigned char>(s[i + 1])) ||
          !absl::ascii_isxdigit(static_cast<unsigned char>(s[i + 2]))) {
        return false;
      }
      i += 2;
    } else if (!absl::ascii_isalnum(c) &&
               kAllowed.find(static_cast<char>(c)) == absl::string_view::npos) {
      return false;
    }
  }
  return true;
}

bool UriReference(absl::string_view s) {
  if (!UriChars(s)) return false;
  // '[' and ']' only delimit an IP literal host.
  const size_t open = s.find('[');
  if (open != absl::string_view::npos) {
    const size_t auth = s.find("//");
    const size_t close = s.find(']');
    if (auth == absl::string_view::npos || open < auth ||
        close == absl::string_view::npos ||
        s.find_first_of("[]", close + 1) != absl::string_view::npos) {
      return false;
    }
  }
  return true;
}

bool Uri(absl::string_view s) {
  size_t i = 0;
  while (i < s.size() && (absl::ascii_isalnum(static_cast<unsigned char>(s[i])) ||
                          s[i] == '+' || s[i] == '-' || s[i] == '.')) {
    ++i;
  }
  if (i == 0 || i >= s.size() || s[i] != ':' ||
      !absl::ascii_isalpha(static_cast<unsigned char>(s[0]))) {
    return false;
  }
  return UriReference(s);
}

bool Uuid(absl::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-'
             : !absl::ascii_isxdigit(static_cast<unsigned char>(s[i]))) {
      return false;
    }
  }
  return true;
}

bool JsonPointer(absl::string_view s) {
  if (s.empty()) return true;
  if (s[0] != '/') return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '~' && (i + 1 >= s.size() || (s[i + 1] != '0' && s[i + 1] != '1'))) {
      return false;
    }
  }
  return true;
}

bool Regex(absl::string_view s) { return IsEcmaRegex(s); }

}  // namespace

Format FormatFromName(absl::string_view name) {
  static const std::pair<absl::string_view, Format> kNames[] = {
      {"date-time", Format::kDateTime}, {"date", Format::kDate},
      {"time", Format::kTime},          {"duration", Format::kDuration},
      {"email", Format::kEmail},        {"hostname", Format::kHostname},
      {"ipv4", Format::kIpv4},          {"ipv6", Format::kIpv6},
      {"uri", Format::kUri},            {"uri-reference", Format::kUriReference},
      {"uuid", Format::kUuid},          {"json-pointer", Format::kJsonPointer},
      {"regex", Format::kRegex},
  };
  for (const auto& [n, f] : kNames) {
    if (n == name) return f;
  }
  return Format::kUnknown;
}

absl::Span<const absl::string_view> KnownFormatNames() {
  static constexpr absl::string_view kNames[] = {
      "date-time", "date", "time", "duration", "email", "hostname", "ipv4",
      "ipv6", "uri", "uri-reference", "uuid", "json-pointer", "regex",
      // Specified but not asserted by toolgate.
      "idn-email", "idn-hostname", "iri", "iri-reference", "uri-template",
      "relative-json-pointer",
      // OpenAPI.
      "int32", "int64", "float", "double", "byte", "binary", "password"};
  return kNames;
}

bool CheckFormat(Format format, absl::string_view s) {
  switch (format) {
    case Format::kUnknown: return true;
    case Format::kDateTime: return DateTime(s);
    case Format::kDate: return Date(s);
    case Format::kTime: return Time(s);
    case Format::kDuration: return Duration(s);
    case Format::kEmail: return Email(s);
    case Format::kHostname: return Hostname(s);
    case Format::kIpv4: return Ipv4(s);
    case Format::kIpv6: return Ipv6(s);
    case Format::kUri: return Uri(s);
    case Format::kUriReference: return UriReference(s);
    case Format::kUuid: return Uuid(s);
    case Format::kJsonPointer: return JsonPointer(s);
    case Format::kRegex: return Regex(s);
  }
  return false;
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
