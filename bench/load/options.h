// Flags of the toolgate load generator (//bench/load:loadgen).
//
// The generator only ever talks to this machine: an address that is not a
// loopback address is refused before any connection is made, so a typo or
// a pasted production address cannot turn a benchmark into a load test of
// someone else's service.
#ifndef TOOLGATE_BENCH_LOAD_OPTIONS_H_
#define TOOLGATE_BENCH_LOAD_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace toolgate {
namespace load {

// stateless: each request names its snapshot. run: each worker opens one
// run per snapshot it uses and sends run_id/run_token (adds run
// authorization and the breaker bookkeeping to every call).
enum class Mode { kStateless, kRun };

// What is sent. allow, reject, text and mixed are ValidateToolCall with
// the payloads of bench/engine/payloads.h (mixed interleaves all of allow,
// reject and text). health is grpc.health.v1.Health/Check (service ""),
// the baseline the others are compared to; verdict is ExtractVerdict with
// the bench VerdictEnvelope() and the default result schema. authz is
// Envoy's ext_authz Check (envoy.service.auth.v3.Authorization) of the
// mcp_allow payload as an MCP tools/call body (docs/mesh.md).
enum class Mix { kAllow, kReject, kText, kMixed, kHealth, kVerdict, kAuthz };

absl::string_view ModeName(Mode mode);
absl::string_view MixName(Mix mix);

inline constexpr int kMaxDurationSeconds = 120;
inline constexpr int kMaxConcurrency = 256;

struct LoadgenOptions {
  std::string addr = "127.0.0.1:50051";
  int duration_seconds = 10;  // 1..kMaxDurationSeconds.
  int concurrency = 4;        // Closed-loop workers, 1..kMaxConcurrency.
  Mode mode = Mode::kStateless;
  Mix mix = Mix::kAllow;
  int64_t max_requests = 0;   // Stop after this many; 0: only the clock.
  int rpc_timeout_ms = 5000;  // Per-RPC deadline; expiry is an error.
  std::string label;          // Free text copied into the JSON line.
};

// OK for 127.0.0.0/8 ("127.0.0.1:50051"), "localhost:PORT", "[::1]:PORT"
// and "unix:PATH"; INVALID_ARGUMENT naming the reason otherwise. A port
// (1..65535) is required for the network forms.
absl::Status CheckLoopbackAddress(absl::string_view addr);

// Parses "--name=value" or "--name value". Unknown flags, out-of-range
// values and non-loopback addresses are INVALID_ARGUMENT.
absl::StatusOr<LoadgenOptions> ParseLoadgenFlags(
    const std::vector<std::string>& args);

std::string LoadgenUsage();

}  // namespace load
}  // namespace toolgate

#endif  // TOOLGATE_BENCH_LOAD_OPTIONS_H_
