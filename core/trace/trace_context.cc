#include "core/trace/trace_context.h"

#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_split.h"

namespace toolgate::trace {
namespace {

int LowerHexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// `text` (exactly 2 * N lowercase hex digits) into `out`; false otherwise.
template <size_t N>
bool ReadHex(absl::string_view text, std::array<uint8_t, N>* out) {
  if (text.size() != 2 * N) return false;
  for (size_t i = 0; i < N; ++i) {
    const int hi = LowerHexValue(text[2 * i]);
    const int lo = LowerHexValue(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    (*out)[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return true;
}

template <size_t N>
bool AllZero(const std::array<uint8_t, N>& id) {
  for (uint8_t b : id) {
    if (b != 0) return false;
  }
  return true;
}

// HTTP's optional whitespace (spaces and tabs) around `s`.
absl::string_view StripOws(absl::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

bool KeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '*' || c == '/';
}

// The specification's key: a simple key (lcalpha, then up to 255 key
// characters) or tenant@system (a tenant of up to 241 starting with a
// letter or digit, a system of up to 14 starting with a letter).
bool ValidKey(absl::string_view key) {
  const size_t at = key.find('@');
  absl::string_view tenant = key.substr(0, at);
  absl::string_view system = at == absl::string_view::npos
                                 ? absl::string_view()
                                 : key.substr(at + 1);
  if (tenant.empty() || !absl::c_all_of(tenant, KeyChar)) return false;
  if (at == absl::string_view::npos) {
    return tenant.size() <= 256 && tenant[0] >= 'a' && tenant[0] <= 'z';
  }
  return tenant.size() <= 241 && !system.empty() && system.size() <= 14 &&
         system[0] >= 'a' && system[0] <= 'z' &&
         absl::c_all_of(system, KeyChar);
}

// Printable ASCII but ',' and '=', spaces inside only, at most 256.
bool ValidValue(absl::string_view value) {
  if (value.empty() || value.size() > 256 || value.back() == ' ') return false;
  return absl::c_all_of(value, [](char c) {
    return c >= 0x20 && c <= 0x7e && c != ',' && c != '=';
  });
}

// A tracestate worth passing on: bounded, and a list of at most 32
// key=value members with distinct keys, as the specification writes it
// (empty members and spaces or tabs around members allowed). Anything
// else is not a tracestate but caller text, and is dropped whole.
bool ValidTracestate(absl::string_view s) {
  if (s.size() > kMaxTracestateBytes) return false;
  std::vector<absl::string_view> keys;
  for (absl::string_view member : absl::StrSplit(s, ',')) {
    member = StripOws(member);
    if (member.empty()) continue;
    const size_t eq = member.find('=');
    if (eq == absl::string_view::npos || keys.size() == 32) return false;
    const absl::string_view key = member.substr(0, eq);
    if (!ValidKey(key) || !ValidValue(member.substr(eq + 1)) ||
        absl::c_linear_search(keys, key)) {
      return false;
    }
    keys.push_back(key);
  }
  return true;
}

}  // namespace

std::string Hex(const uint8_t* bytes, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(2 * n, '0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 0xf];
  }
  return out;
}

std::optional<TraceContext> ParseTraceparent(absl::string_view traceparent,
                                             absl::string_view tracestate) {
  traceparent = StripOws(traceparent);
  if (traceparent.size() < 55) return std::nullopt;
  std::array<uint8_t, 1> version;
  std::array<uint8_t, 1> flags;
  TraceContext c;
  if (!ReadHex(traceparent.substr(0, 2), &version) || version[0] == 0xff ||
      traceparent[2] != '-' || !ReadHex(traceparent.substr(3, 32), &c.trace_id) ||
      traceparent[35] != '-' || !ReadHex(traceparent.substr(36, 16), &c.span_id) ||
      traceparent[52] != '-' || !ReadHex(traceparent.substr(53, 2), &flags)) {
    return std::nullopt;
  }
  // Version 00 is exactly 55 characters; a later version may add fields
  // after a '-'.
  if (traceparent.size() > 55 && (version[0] == 0 || traceparent[55] != '-')) {
    return std::nullopt;
  }
  if (AllZero(c.trace_id) || AllZero(c.span_id)) return std::nullopt;
  c.sampled = (flags[0] & 0x01) != 0;
  tracestate = StripOws(tracestate);
  if (ValidTracestate(tracestate)) c.tracestate = std::string(tracestate);
  return c;
}

std::string FormatTraceparent(const TraceId& trace_id, const SpanId& span_id,
                              bool sampled) {
  return "00-" + Hex(trace_id.data(), trace_id.size()) + "-" +
         Hex(span_id.data(), span_id.size()) + (sampled ? "-01" : "-00");
}

}  // namespace toolgate::trace
