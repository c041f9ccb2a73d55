#include "core/trace/trace_context.h"

#include "absl/strings/ascii.h"

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

// A tracestate worth passing on: bounded, printable ASCII (its grammar's
// characters), no control bytes that could split a header.
bool PlausibleTracestate(absl::string_view s) {
  if (s.size() > kMaxTracestateBytes) return false;
  for (char c : s) {
    if (c < 0x20 || c > 0x7e) return false;
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
  traceparent = absl::StripAsciiWhitespace(traceparent);
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
  tracestate = absl::StripAsciiWhitespace(tracestate);
  if (PlausibleTracestate(tracestate)) c.tracestate = std::string(tracestate);
  return c;
}

std::string FormatTraceparent(const TraceId& trace_id, const SpanId& span_id,
                              bool sampled) {
  return "00-" + Hex(trace_id.data(), trace_id.size()) + "-" +
         Hex(span_id.data(), span_id.size()) + (sampled ? "-01" : "-00");
}

}  // namespace toolgate::trace
