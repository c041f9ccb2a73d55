// W3C Trace Context (https://www.w3.org/TR/trace-context/): the
// `traceparent` and `tracestate` a caller sends (gRPC metadata, or the HTTP
// headers Envoy forwards), so toolgate's spans join the caller's trace.
//
// Parsing follows the specification's rules for receivers: version "ff"
// and any malformed field make the header invalid (then it is ignored and
// toolgate starts a new trace, as the specification asks, rather than
// failing the call: tracing never changes a decision); a future version
// is read by its first four fields; an all-zero trace or parent id is
// invalid; hex must be lowercase. A tracestate is kept only when it is
// one (the specification's list of at most 32 key=value members with
// distinct keys, bounded): otherwise it is caller text and is dropped,
// the traceparent still read.
#ifndef TOOLGATE_CORE_TRACE_TRACE_CONTEXT_H_
#define TOOLGATE_CORE_TRACE_TRACE_CONTEXT_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace toolgate::trace {

using TraceId = std::array<uint8_t, 16>;
using SpanId = std::array<uint8_t, 8>;

struct TraceContext {
  TraceId trace_id{};
  SpanId span_id{};  // The caller's span: the parent of ours.
  bool sampled = false;
  std::string tracestate;  // Passed on as received (bounded), or empty.
};

// The longest tracestate kept (the specification's 32 members of at most
// 256 bytes would be 8 KiB; vendors keep 512 bytes). A longer one is
// dropped, never cut mid-member.
inline constexpr size_t kMaxTracestateBytes = 512;

// nullopt for a missing or invalid traceparent. A header sent twice is
// passed joined with ',' (as HTTP joins it): an invalid traceparent, and
// one tracestate list.
std::optional<TraceContext> ParseTraceparent(absl::string_view traceparent,
                                             absl::string_view tracestate);

// "00-<trace id>-<span id>-<flags>".
std::string FormatTraceparent(const TraceId& trace_id, const SpanId& span_id,
                              bool sampled);

std::string Hex(const uint8_t* bytes, size_t n);

}  // namespace toolgate::trace

#endif  // TOOLGATE_CORE_TRACE_TRACE_CONTEXT_H_
