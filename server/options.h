// Command-line options of the toolgate sidecar.
#ifndef TOOLGATE_SERVER_OPTIONS_H_
#define TOOLGATE_SERVER_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/engine/engine.h"
#include "server/call_streams.h"

namespace toolgate {
namespace server {

// --state_store and its companions (docs/state.md).
struct StateStoreOptions {
  std::string url = "memory";  // memory | redis:// | rediss:// | unix://
  std::string password_file;
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  int timeout_ms = 50;
  std::string key_prefix = "toolgate:";
};

struct ServerOptions {
  std::string listen = "127.0.0.1:50051";  // host:port or unix:PATH.
  std::string manifests_dir;               // Empty: the embedded examples.
  std::string audit_log;                   // Empty: off; "-": stderr.
  std::string port_file;                   // Written with the bound port.
  std::string metrics_listen;  // HOST:PORT serving /metrics; empty: off.
  EngineOptions engine;
  int shutdown_grace_seconds = 10;
  // After SIGTERM, how long the server goes on accepting (health already
  // NOT_SERVING) before it stops: calls already on the wire are read and
  // answered instead of cancelled. Counted within the grace period.
  int drain_notice_ms = 1000;
  std::string admin_token_file;  // Empty: admin only on a local listener.
  // TLS: cert and key together, or neither (plaintext). With a client CA,
  // every client must present a certificate that CA signed (mTLS).
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_client_ca_file;
  // Client-certificate identities (subjectAltName entries, or the common
  // name of a certificate without them) that may list and decide approvals
  // besides the admin token; needs --tls_client_ca_file.
  std::vector<std::string> approver_identities;
  // A second, plaintext listener serving only grpc.health.v1.Health, for
  // probes that cannot speak TLS (Kubernetes `grpc:` probes). Empty: none.
  std::string health_listen;
  StateStoreOptions state_store;
  // Tracing (docs/operating.md "Tracing"): spans over OTLP/gRPC to this
  // HOST:PORT; empty: off (nothing traced or timed).
  std::string otlp_endpoint;
  std::string otlp_ca_file;  // TLS to the collector; empty: plaintext.
  double trace_sample_ratio = 1.0;  // For traces toolgate starts.
  int otlp_timeout_ms = 1000;       // Per export.
  bool snapshot_create_admin = true;  // --snapshot_create=admin|any.
  // ValidateToolCallStream calls open at once; one more is
  // RESOURCE_EXHAUSTED before any of its messages is read. Each open
  // stream may hold its header, its assembled content and (with
  // --audit_payloads) its events: a few MB at the default limits.
  int max_call_streams = kDefaultMaxCallStreams;
  // Envoy ext_proc Process streams open at once (one per HTTP request in
  // flight through the mesh); one more is RESOURCE_EXHAUSTED before any of
  // its messages is read (Envoy's filter fails closed). Each open stream
  // holds at most a request body and an answer of --max_input_bytes and
  // 16 KiB of the headers toolgate reads: ~400 MB at the defaults.
  int max_ext_proc_streams = kDefaultMaxExtProcStreams;
  // A ValidateToolCallStream call that receives no message for this long
  // (before its first or between two), and an ext_proc Process stream that
  // receives no first message within it, is ended DEADLINE_EXCEEDED (no
  // decision) and frees its slot: idle clients cannot hold every slot.
  int stream_idle_timeout_ms = kDefaultStreamIdleTimeoutMs;
  // Largest response the server sends; a bigger one fails that call with
  // RESOURCE_EXHAUSTED. 0: the larger of 4 MiB (a default client's receive
  // limit) and what the receive limit allows in (4 x max_input_bytes + 1 MiB).
  int64_t max_send_message_bytes = 0;
};

// max_send_message_bytes with 0 resolved.
int MaxSendMessageBytes(const ServerOptions& options);
// What the transport accepts: inputs over the size cap must reach the engine
// (to be answered with input_too_large), so it sits well above the cap.
int MaxReceiveMessageBytes(const ServerOptions& options);

// Parses --flag=value or --flag value. Unknown flags are an error: a typo
// in a limit must not silently leave the default in force.
absl::StatusOr<ServerOptions> ParseServerFlags(
    const std::vector<std::string>& args);

std::string ServerUsage();

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_OPTIONS_H_
