#include "server/tracing.h"

#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace toolgate {
namespace server {
namespace {

thread_local trace::RequestTrace* current_trace = nullptr;

// At most this many codes or names on a span: a response with thousands
// of violations must not make a span of thousands of strings.
constexpr size_t kMaxListed = 64;

// Every value of metadata `key`, joined with ',' as HTTP joins a header
// sent twice (a traceparent sent twice is then invalid, as W3C asks; two
// tracestate lines make one list). No copy for the usual single value.
absl::string_view Metadata(const grpc::ServerContextBase& context,
                           const char* key, std::string* joined) {
  auto range = context.client_metadata().equal_range(key);
  if (range.first == range.second) return absl::string_view();
  absl::string_view first(range.first->second.data(),
                          range.first->second.size());
  if (std::next(range.first) == range.second) return first;
  joined->assign(first.data(), first.size());
  for (auto it = std::next(range.first); it != range.second; ++it) {
    absl::StrAppend(joined, ",",
                    absl::string_view(it->second.data(), it->second.size()));
  }
  return *joined;
}

template <typename Violations>
std::vector<std::string> Codes(const Violations& violations) {
  std::vector<std::string> codes;
  absl::flat_hash_set<std::string> seen;
  for (const v1::Violation& v : violations) {
    if (codes.size() == kMaxListed) break;
    if (seen.insert(v.code()).second) codes.push_back(v.code());
  }
  return codes;
}

// Enum names without their prefix: DECISION_ALLOW -> ALLOW. A generated
// enum's names live as long as the program, so the span keeps a view.
trace::StaticText Bare(const std::string& enum_name, absl::string_view prefix) {
  absl::string_view name = enum_name;
  if (absl::StartsWith(name, prefix)) name.remove_prefix(prefix.size());
  return trace::StaticText::Of(name);
}
// A temporary's view would dangle: only a generated name will do.
trace::StaticText Bare(std::string&& enum_name,
                       absl::string_view prefix) = delete;

// "stream_openai_chat", as ToolCall.source names a streamed call.
std::string StreamPath(v1::StreamFormat format) {
  return "stream_" +
         absl::AsciiStrToLower(
             Bare(v1::StreamFormat_Name(format), "STREAM_FORMAT_").view());
}

std::string ExtractionPath(const v1::ValidateToolCallRequest& request) {
  switch (request.model_output_case()) {
    case v1::ValidateToolCallRequest::kText:
      // A declared format reads as its name, as ToolCall.source does.
      // (A value this build does not name stays "text"; it is refused.)
      if (request.text_format() != v1::TEXT_FORMAT_UNSPECIFIED &&
          v1::TextFormat_IsValid(request.text_format())) {
        return absl::AsciiStrToLower(
            Bare(v1::TextFormat_Name(request.text_format()), "TEXT_FORMAT_")
                .view());
      }
      return "text";
    case v1::ValidateToolCallRequest::kNativeJson:
      return "native";
    case v1::ValidateToolCallRequest::kStreamEvents:
      return StreamPath(request.stream_events().format());
    default:
      return "none";
  }
}

// Names of the calls that named a tool of the snapshot.
std::vector<std::string> ResolvedTools(
    const v1::ValidateToolCallResponse& response) {
  std::vector<bool> unknown(response.calls_size(), false);
  for (const v1::Violation& v : response.violations()) {
    if (v.code() == "unknown_tool" && v.call_index() >= 0 &&
        v.call_index() < response.calls_size()) {
      unknown[v.call_index()] = true;
    }
  }
  std::vector<std::string> names;
  for (int i = 0; i < response.calls_size() && names.size() < kMaxListed;
       ++i) {
    if (!unknown[i] && !response.calls(i).name().empty()) {
      names.push_back(response.calls(i).name());
    }
  }
  return names;
}

}  // namespace

std::optional<trace::TraceContext> TraceParentOf(
    const grpc::ServerContextBase& context) {
  std::string traceparent, tracestate;
  return trace::ParseTraceparent(Metadata(context, "traceparent", &traceparent),
                                 Metadata(context, "tracestate", &tracestate));
}

trace::StaticText InternSpanName(absl::string_view service,
                                 absl::string_view method) {
  static absl::Mutex mu;
  // Never freed: spans still queued at exit hold views of these.
  static auto* names = new std::set<std::string>();
  absl::MutexLock lock(&mu);
  return trace::StaticText::Of(
      *names->insert(absl::StrCat(service, "/", method)).first);
}

void SetRpc(trace::RequestTrace& trace, trace::StaticText service,
            trace::StaticText method) {
  trace.Set("rpc.system", trace::StaticText("grpc"));
  trace.Set("rpc.service", service);
  trace.Set("rpc.method", method);
}

void SetStatus(trace::RequestTrace& trace, const grpc::Status& status) {
  trace.Set("rpc.grpc.status_code", int64_t{status.error_code()});
  // The code's name, never the message: messages quote what the caller
  // sent (an unknown run id, a map key, a name), which may be a secret.
  if (!status.ok()) {
    trace.SetError(absl::StatusCodeToString(
        static_cast<absl::StatusCode>(status.error_code())));
  }
}

// What a tool-call decision says; `path` is how its output was read.
void SetCallAnswer(trace::RequestTrace& trace, std::string path,
                   const v1::ValidateToolCallResponse& response) {
  trace.Set("toolgate.decision",
            Bare(v1::Decision_Name(response.decision()), "DECISION_"));
  if (!response.stop_reason().empty()) {
    trace.Set("toolgate.stop_reason", response.stop_reason());
  }
  trace.Set("toolgate.violation_codes", Codes(response.violations()));
  std::vector<std::string> tools = ResolvedTools(response);
  if (!tools.empty()) trace.Set("gen_ai.tool.name", tools.front());
  trace.Set("toolgate.tool_names", std::move(tools));
  trace.Set("toolgate.extraction_path", std::move(path));
  trace.Set("toolgate.attempt", int64_t{response.attempt()});
  trace.Set("toolgate.attempts_left", int64_t{response.attempts_left()});
  if (!response.approval_id().empty()) {
    trace.Set("toolgate.approval_id", response.approval_id());
  }
  trace.Set("toolgate.audit_id", response.audit_id());
}

void SetAnswer(trace::RequestTrace& trace,
               const v1::ValidateToolCallRequest& request,
               const v1::ValidateToolCallResponse& response) {
  SetCallAnswer(trace, ExtractionPath(request), response);
}

void SetAnswer(trace::RequestTrace& trace,
               const v1::ToolCallStreamRequest& header,
               const v1::ValidateToolCallResponse& response) {
  SetCallAnswer(trace, StreamPath(header.stream_format()), response);
}

void SetAnswer(trace::RequestTrace& trace,
               const v1::ValidateToolOutputRequest& request,
               const v1::ValidateToolOutputResponse& response) {
  trace.Set("toolgate.output_status",
            Bare(v1::OutputVerdict_Name(response.verdict()),
                 "OUTPUT_VERDICT_"));
  trace.Set("toolgate.violation_codes", Codes(response.violations()));
  bool unknown = false;
  for (const v1::Violation& v : response.violations()) {
    unknown |= v.code() == "unknown_tool";
  }
  if (!unknown) trace.Set("gen_ai.tool.name", request.tool_name());
  trace.Set("toolgate.read_only", response.read_only());
  if (!request.run_id().empty()) trace.Set("toolgate.run_id", request.run_id());
  trace.Set("toolgate.audit_id", response.audit_id());
}

void SetAnswer(trace::RequestTrace& trace,
               const v1::ExtractVerdictRequest&,
               const v1::ExtractVerdictResponse& response) {
  trace.Set("toolgate.outcome",
            Bare(v1::Outcome_Name(response.outcome()), "OUTCOME_"));
  if (!response.stop_reason().empty()) {
    trace.Set("toolgate.stop_reason", response.stop_reason());
  }
  trace.Set("toolgate.violation_codes", Codes(response.violations()));
  trace.Set("toolgate.audit_id", response.audit_id());
}

void SetAnswer(trace::RequestTrace& trace, const v1::OpenRunRequest& request,
               const v1::OpenRunResponse& response) {
  trace.Set("toolgate.run_id", response.run_id());
  trace.Set("toolgate.snapshot_id", response.snapshot_id());
  trace.Set("gen_ai.request.model", request.model());
  auto tenant = request.context().find("tenant");
  trace.Set("toolgate.tenant",
            tenant == request.context().end() ? std::string() : tenant->second);
}

void SetAnswer(trace::RequestTrace& trace,
               const v1::DecideApprovalRequest& request,
               const v1::DecideApprovalResponse& response) {
  trace.Set("toolgate.approval_id", request.approval_id());
  trace.Set("toolgate.approval_state",
            Bare(v1::ApprovalState_Name(response.approval().state()),
                 "APPROVAL_STATE_"));
  trace.Set("toolgate.run_id", response.approval().run_id());
}

std::optional<trace::RequestTrace> StartMeshTrace(
    trace::Tracer* tracer, const grpc::ServerContextBase& context,
    absl::string_view traceparent, absl::string_view tracestate,
    trace::StaticText service, trace::StaticText method) {
  std::optional<trace::RequestTrace> out;
  if (tracer == nullptr) return out;
  std::optional<trace::TraceContext> parent =
      trace::ParseTraceparent(traceparent, tracestate);
  if (!parent.has_value()) parent = TraceParentOf(context);
  out.emplace(tracer, absl::StrCat(service.view(), "/", method.view()),
              parent);
  if (out->recording()) SetRpc(*out, service, method);
  return out;
}

void SetMeshOutcome(trace::RequestTrace& trace, const MeshOutcome& outcome) {
  if (!outcome.decision.empty()) {
    trace.Set("toolgate.decision", std::string(outcome.decision));
  }
  std::vector<std::string> codes;
  absl::flat_hash_set<std::string> seen;
  for (const std::string& code : outcome.violations) {
    if (codes.size() == kMaxListed) break;
    if (seen.insert(code).second) codes.push_back(code);
  }
  trace.Set("toolgate.violation_codes", std::move(codes));
  if (!outcome.run_id.empty()) trace.Set("toolgate.run_id", outcome.run_id);
  trace.Set("toolgate.read_only", outcome.read_only);
}

trace::RequestTrace* CurrentTrace() { return current_trace; }

TraceScope::TraceScope(trace::RequestTrace* trace) : previous_(current_trace) {
  current_trace = trace;
}

TraceScope::~TraceScope() { current_trace = previous_; }

}  // namespace server
}  // namespace toolgate
