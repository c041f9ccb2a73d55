// What toolgate's RPCs take and return, as plain C++ (no gRPC): the
// engine's options, each RPC's request and response, and the audit record.
//
// Below every stage of the pipeline (core/pipeline/*) and the engine that
// runs them (core/engine/engine.h, which the server and the CLI include).
// Errors a caller made are absl::Status; decisions about model output are
// the values below, and only DECISION ALLOW lets a call run.
#ifndef TOOLGATE_CORE_PIPELINE_API_H_
#define TOOLGATE_CORE_PIPELINE_API_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "core/trace/tracer.h"
#include "core/gate/gate_result.h"
#include "core/json/strict_json.h"
#include "core/output/output.h"
#include "core/snapshot/snapshot.h"
#include "core/snapshot/tool_schema.h"
#include "core/stream/assembler.h"
#include "core/util/cancel.h"
#include "core/verdict/verdict.h"

namespace toolgate {

struct EngineOptions {
  JsonLimits limits;  // Size cap and depth for every input.
  size_t max_snapshots = 1024;
  size_t max_snapshot_bytes = size_t{256} << 20;  // Compiled form.
  size_t max_runs = 100000;
  size_t max_runs_per_tenant = 10000;
  int64_t run_idle_ttl_seconds = 3600;
  size_t max_violations_per_call = 20;
  // An output with more tool calls is one too_many_calls violation.
  size_t max_calls_per_output = 64;
  // Byte budget of the compiled inline result_schema cache (0: no cache).
  size_t result_schema_cache_bytes = 64 << 20;
  // Byte budget of the process-wide pool of tool schemas compiled on use
  // (core/snapshot/schema_pool.h): tools a snapshot does not keep resident.
  // Process-wide, so the last Engine constructed sets it (0: every use of
  // such a tool compiles its schema again).
  size_t schema_pool_bytes = size_t{64} << 20;
  // What one ValidateToolCall or ValidateToolOutput may spend compiling
  // such tools' schemas, in program bytes (CompileScope, tool_schema.h):
  // past it, a call whose schema is neither resident nor pooled is
  // refused (evaluation_limit). Each program it used is kept for the
  // request, so a tool compiles at most once per request.
  // --request_compile_bytes.
  size_t request_compile_bytes = CompileScope::kDefaultMaxBytes;
  // A ListSnapshots page ends once its entries hold about this many bytes.
  size_t snapshot_page_bytes = 1 << 20;
  // Audit records also carry what replay needs to decide the call again
  // (AuditRecord::payload). Off by default: model output and tool output
  // may hold user data.
  bool audit_payloads = false;
  // A decision whose audit record could not be written is not returned:
  // the call fails UNAVAILABLE instead (never decided unaudited).
  bool audit_required = false;
  // Approvals: how long a request stays decidable and usable, and caps
  // (core/approval/approval_store.h).
  int64_t approval_ttl_seconds = 900;
  size_t max_approvals = 10000;
  size_t max_pending_approvals_per_run = 64;
  size_t max_pending_approvals_per_tenant = 1000;
  size_t max_approval_bytes = size_t{64} << 20;
  // AwaitApproval calls one run may have waiting at once.
  int max_waits_per_run = 4;
  // Protected-text indexes of all open runs, each distinct set of texts
  // counted once (core/run/protected_texts.h).
  size_t max_protected_text_bytes = size_t{64} << 20;
  // A streamed output (OutputKind::kStream) with more events is refused
  // as input_too_large; so is one whose events hold more bytes than the
  // request limit, MaxStreamBytes().
  size_t max_stream_events = stream::kDefaultMaxStreamEvents;
};

// The bytes all events of one stream may hold: what the server's transport
// lets one request carry (4 x limits.max_bytes + 1 MiB: event envelopes
// repeat ids and field names around every fragment, so a stream is several
// times its content).
inline size_t MaxStreamBytes(const EngineOptions& options) {
  return 4 * options.limits.max_bytes + (size_t{1} << 20);
}

// What an Assembler is given under `options`.
inline stream::Limits StreamLimitsFor(const EngineOptions& options) {
  stream::Limits limits;
  limits.json = options.limits;
  limits.max_events = options.max_stream_events;
  limits.max_bytes = MaxStreamBytes(options);
  return limits;
}

// ListSnapshots pages: page_size 0 means the default, more than the
// maximum is the maximum; a page also ends once its entries hold about
// EngineOptions::snapshot_page_bytes (it always holds at least one), so
// that a page fits a default client's 4 MiB receive limit.
inline constexpr int kDefaultSnapshotPageSize = 100;
inline constexpr int kMaxSnapshotPageSize = 1000;

// Audit lines echo only bounded text: each tool name is cut to
// kMaxToolNameBytes (marked "..."); tools and codes list at most this many
// entries, then one "+N more".
inline constexpr size_t kAuditMaxListed = 64;

// kStream: a provider's streamed events, assembled (core/stream) into
// native or text output before anything else reads them; a stream that did
// not complete is refused as a read error (REJECT, or STOP by the breaker).
enum class OutputKind { kUnset, kText, kNative, kStream };

struct ValidateCallRequest {
  std::string snapshot_id;
  std::string run_id;
  std::string run_token;
  OutputKind kind = OutputKind::kUnset;
  // Not owned: must outlive the call (the server points it at the proto).
  absl::string_view output;
  // kStream: the format (kUnspecified is INVALID_ARGUMENT), and either the
  // events (not owned; the engine assembles them) or `assembled`, an
  // assembly the caller already ran over them (the client-streaming RPC
  // assembles as events arrive; not owned). With both, `assembled` decides
  // and the events are only what an audit payload records.
  stream::Format stream_format = stream::Format::kUnspecified;
  std::vector<absl::string_view> stream_events;
  const stream::Assembly* assembled = nullptr;
  bool syntax_repair = false;
  // An approval of the run for the call in `output` (core/approval).
  std::string approval_id;
  // Cancelled or past its deadline: CANCELLED / DEADLINE_EXCEEDED, no
  // decision, nothing counted toward the run's breaker.
  CancelToken cancel;
  // Who asked, for the audit record (AuditRecord::source): empty for the
  // native RPC; e.g. "envoy_ext_authz" for the mesh hook.
  std::string source;
  // The caller runs the calls exactly as the output holds them and cannot
  // use the rewritten arguments an ALLOW returns (the mesh forwards the
  // request as it came). Then nothing is rewritten: policy.coerce is not
  // applied (the schema sees the value as sent), and a text value a
  // strip_html rule would change is text_invalid.
  bool forward_as_sent = false;
  // Not owned; null when tracing is off or the call is not sampled. Each
  // stage that runs becomes a child span of it, named as in the stage list,
  // and resolve sets the run's attributes (docs/operating.md "Tracing").
  trace::RequestTrace* trace = nullptr;
  // The stdio gateway's MCP request id (canonical JSON), for the audit
  // record; empty otherwise.
  std::string mcp_request_id;
};

struct CallReport {
  std::string id;
  std::string name;
  std::string arguments_json;  // Canonical; empty when unreadable.
  std::vector<std::string> repairs;
  std::vector<std::string> coercions;  // Pointers policy.coerce coerced.
  // Pointers of text values a `text` rule's strip_html changed.
  std::vector<std::string> sanitizations;
  std::string source;
  int candidates_seen = 0;
};

struct ValidateCallResponse {
  Decision decision = Decision::kReject;
  std::vector<CallReport> calls;
  std::vector<Violation> violations;
  std::string repair_prompt;
  int attempt = 0;
  int attempts_left = 0;
  std::string stop_reason;
  std::string audit_id;
  std::string snapshot_id;
  // The approval requested (NEEDS_APPROVAL) or used (ALLOW).
  std::string approval_id;
  // Why NEEDS_APPROVAL carries no approval id (a run is required).
  std::string message;
};

struct ValidateOutputRequest {
  std::string snapshot_id;
  std::string run_id;
  std::string run_token;
  std::string tool_name;
  std::string content_type;
  int http_status = 0;     // output::kNoHttpStatus for non-HTTP tools.
  absl::string_view body;  // Not owned.
  output::OutputMode mode = output::OutputMode::kUnspecified;
  // As in ValidateCallRequest; nothing counts toward the kill switch.
  CancelToken cancel;
  std::string source;  // As in ValidateCallRequest ("envoy_ext_proc").
  std::string mcp_request_id;  // As in ValidateCallRequest.
};

struct ValidateOutputResponse {
  output::OutputResult result;
  bool read_only = false;  // The run's kill switch is on.
  std::string audit_id;
};

struct VerdictRequest {
  // Optional: tie the verdict to a snapshot or a run (audit only).
  std::string snapshot_id;
  std::string run_id;
  std::string run_token;
  std::string envelope;
  std::string result_schema;  // Inline JSON Schema; "" = the default.
  bool syntax_repair = false;
  CancelToken cancel;  // As in ValidateCallRequest.
};

struct SnapshotPage {
  std::vector<std::shared_ptr<const Snapshot>> snapshots;  // In id order.
  std::string next_page_token;  // Empty on the last page.
};

struct VerdictResponse {
  verdict::VerdictResult result;
  std::string audit_id;
};

// One line of the audit trail: what was decided. Argument values, model
// output and tool output appear only in `payload`, and only under
// EngineOptions::audit_payloads.
struct AuditRecord {
  std::string audit_id;
  absl::Time time;  // When the decision was recorded.
  std::string rpc;
  // The front end that asked when not the RPC itself (envoy_ext_authz,
  // envoy_ext_proc); for a streamed output, the stream's format
  // ("stream_openai_chat", ...); empty for a native call.
  std::string source;
  std::string snapshot_id;
  std::string run_id;
  std::string model;  // The run's model; empty for a stateless call.
  std::string decision;
  std::string stop_reason;
  std::vector<std::string> tools;
  std::vector<std::string> codes;
  std::vector<std::string> repairs;  // Repair kinds applied, per call.
  int64_t latency_us = 0;  // From the request's arrival in the engine.
  // Approvals: the one requested, used or decided; who decided and why.
  std::string approval_id;
  std::string approver;
  std::string reason;
  // The MCP request id (canonical JSON) of a call or result the stdio
  // gateway asked about ("source": "mcp.stdio"); empty otherwise.
  std::string mcp_request_id;
  // Null, or the request in proto JSON form (toolgate.v1 field names)
  // without snapshot_id, run_id and run_token: what replay decides again.
  Json payload;
};

// Writes one record; false when it could not be written.
using AuditSink = std::function<bool(const AuditRecord&)>;

}  // namespace toolgate

#endif  // TOOLGATE_CORE_PIPELINE_API_H_
