#include "server/envoy_authz.h"

#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/mesh/engine_decider.h"
#include "core/mesh/mcp_gate.h"
#include "server/convert.h"
#include "server/envoy_authz_ask.h"
#include "server/tracing.h"
#include "server/envoy_common.h"

namespace toolgate {
namespace server {
namespace {

using envoy::service::auth::v3::CheckRequest;
using envoy::service::auth::v3::CheckResponse;
using mesh::RpcError;
using authz_internal::Ask;
using authz_internal::ReadAsk;
using authz_internal::ReadHeaders;
using authz_internal::ResolveSnapshot;

constexpr int kPermissionDenied = 7;  // google.rpc.Code
constexpr int kForbidden = 403;

// The decision (a deny unless one allowed it) and the HTTP status of its
// deny: 200 for a JSON-RPC error, 403 on REST routes, 405 for a method.
struct Answer {
  mesh::McpDecision decision;
  int http_status = 200;
};

Answer Deny(const Json& id, const RpcError& error, int http_status) {
  return Answer{mesh::Denied(id, error), http_status};
}

// What the metrics read from the engine's answer.
void Report(const mesh::McpDecision& d, bool in_run, MeshOutcome* report) {
  if (report == nullptr || !d.decided.has_value()) return;
  const ValidateCallResponse& decided = *d.decided;
  for (const Violation& v : decided.violations) {
    report->violations.push_back(v.code);
  }
  for (const CallReport& call : decided.calls) {
    for (const std::string& r : call.repairs) report->repairs.push_back(r);
  }
  report->breaker_opened =
      ServerMetrics::OpensBreaker(in_run, decided.decision == Decision::kReject,
                                  decided.attempt, decided.attempts_left);
}

mesh::McpAsk EngineAsk(const Ask& ask, const CancelToken& cancel) {
  mesh::McpAsk out;
  out.snapshot_id = ask.snapshot_id;
  out.run_id = ask.run_id;
  out.run_token = ask.run_token;
  out.approval_id = HeaderOr(ask.headers, kApprovalHeader);
  out.cancel = cancel;
  out.source = std::string(kAuthzSource);
  out.trace = ask.trace;
  return out;
}

std::optional<std::string> HeaderIf(const Headers& headers,
                                    absl::string_view name) {
  auto it = headers.find(name);
  if (it == headers.end()) return std::nullopt;
  return it->second;
}

// Envoy marks a body it cut "x-envoy-auth-partial-body: true". Sent twice
// (a client's own beside Envoy's, joined), it is partial unless every
// value says false.
bool PartialBodyHeader(const Headers& headers) {
  auto it = headers.find("x-envoy-auth-partial-body");
  if (it == headers.end()) return false;
  for (absl::string_view v : absl::StrSplit(it->second, ',')) {
    if (!absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(v), "false")) {
      return true;
    }
  }
  return false;
}

// The method, and a POST's body as Envoy handed it over.
std::optional<Answer> CheckMethodAndBody(const CheckRequest& request,
                                         const Ask& ask) {
  const int http = ask.rest ? kForbidden : 200;
  const std::string method = absl::AsciiStrToUpper(ask.method);
  if (!ask.rest && method == "GET") {
    return Deny(nullptr,
                mesh::DeniedError("method_not_allowed",
                                  "GET streams are not served "
                                  "through toolgate"),
                405);
  }
  if (method != "POST" && !(method == "DELETE" && !ask.rest)) {
    return Deny(nullptr,
                mesh::DeniedError("method_not_allowed", "only POST is allowed"),
                ask.rest ? kForbidden : 405);
  }
  const int64_t size = request.attributes().request().http().size();
  if (PartialBodyHeader(ask.headers) ||
      (size > 0 && static_cast<int64_t>(ask.body.size()) < size)) {
    return Deny(nullptr,
                mesh::DeniedError("partial_body",
                                  "the request body was cut off before "
                                  "toolgate saw it (over Envoy's "
                                  "max_request_bytes?)"),
                http);
  }
  if (method == "POST" && ask.body.empty()) {
    return Deny(nullptr,
                mesh::DeniedError("missing_body", "a POST without a body"),
                http);
  }
  if (ask.body.empty()) return std::nullopt;
  if (std::optional<mesh::HeaderRefusal> refused = mesh::CheckBodyHeaders(
          HeaderIf(ask.headers, "content-type"),
          HeaderIf(ask.headers, "content-encoding"))) {
    return Deny(nullptr, mesh::DeniedError(refused->reason, refused->message),
                http);
  }
  return std::nullopt;
}

// Everything before the body is read: method, body, its headers, snapshot.
std::optional<Answer> Precheck(Engine* engine, const CheckRequest& request,
                               Ask* ask) {
  if (std::optional<Answer> refused = CheckMethodAndBody(request, *ask)) {
    return refused;
  }
  absl::StatusOr<std::string> snapshot = ResolveSnapshot(engine, request, *ask);
  if (!snapshot.ok()) {
    return Deny(nullptr,
                mesh::DeniedError("no_snapshot", snapshot.status().message()),
                ask->rest ? kForbidden : 200);
  }
  ask->snapshot_id = *std::move(snapshot);
  return std::nullopt;
}

void Allow(const Ask& ask, const mesh::McpDecision& d,
           const std::string& grant, CheckResponse* response) {
  auto* ok = response->mutable_ok_response();
  ok->add_headers_to_remove(std::string(kRunTokenHeader));
  // How ext_proc reads the answer: never guessed from a body the client
  // wrote (a REST body may look like a tools/call of the route's tool).
  SetHeader(kRouteHeader, mesh::RouteName(ask.rest), ok->add_headers());
  const std::string& snapshot =
      ask.snapshot_id.empty() ? d.snapshot_id : ask.snapshot_id;
  if (snapshot.empty()) {
    ok->add_headers_to_remove(std::string(kSnapshotHeader));
  } else {
    SetHeader(kSnapshotHeader, snapshot, ok->add_headers());
  }
  if (!d.audit_ids.empty()) {
    SetHeader(kAuditIdHeader, absl::StrJoin(d.audit_ids, ","),
              ok->add_headers());
  }
  SetHeader(kToolHeader, d.tool, ok->add_headers());
  if (grant.empty()) {
    ok->add_headers_to_remove(std::string(kRunGrantHeader));
  } else {
    SetHeader(kRunGrantHeader, grant, ok->add_headers());
  }
}

void Refuse(const Answer& a, CheckResponse* response) {
  response->mutable_status()->set_code(kPermissionDenied);
  response->mutable_status()->set_message("denied by toolgate");
  auto* denied = response->mutable_denied_response();
  denied->mutable_status()->set_code(
      static_cast<envoy::type::v3::StatusCode>(a.http_status));
  SetHeader("content-type", "application/json", denied->add_headers());
  SetHeader(kDeniedHeader, "1", denied->add_headers());
  const Json& body = a.decision.answer;
  const bool rest = a.http_status == kForbidden;
  denied->set_body(rest && body.is_object()
                       ? CanonicalJson({{"error", body["error"]}})
                       : CanonicalJson(body));
}

// The grant ext_proc needs for an allowed call's answer in a run, issued
// before the decision: a decision is never refused after it spent a
// budget or an approval. Returns the deny when none could be issued.
std::optional<Answer> IssueGrant(GrantStore* grants, const Ask& ask,
                                 const Json& id, std::string* grant) {
  if (ask.run_id.empty() || ask.body.empty()) return std::nullopt;
  absl::StatusOr<std::string> issued =
      grants->Issue({ask.run_id, ask.run_token});
  if (issued.ok()) {
    *grant = *std::move(issued);
    return std::nullopt;
  }
  Answer denied = Deny(id, mesh::UnavailableError(issued.status().message()),
                       ask.rest ? kForbidden : 200);
  denied.decision.label = "ERROR";
  return denied;
}

Answer Decide(Engine* engine, GrantStore* grants, const CheckRequest& request,
              Ask& ask, const CancelToken& cancel, std::string* grant) {
  mesh::EngineDecider decider(engine);
  const mesh::McpGate gate(&decider, decider.limits());
  // An MCP body is read once: its id answers every deny, its messages are
  // decided. A REST body is its arguments (read by DecideRest).
  const mesh::McpRequest body =
      ask.rest ? mesh::McpRequest() : gate.Read(ask.body);
  if (std::optional<Answer> early = Precheck(engine, request, &ask)) {
    if (!ask.rest) early->decision.answer["id"] = body.id;
    return *std::move(early);
  }
  Answer answer;
  if (ask.body.empty()) {  // DELETE of an MCP session: runs no tool.
    answer.decision.allowed = true;
    answer.decision.label = "PASS_THROUGH";
  } else if (std::optional<Answer> refused =
                 IssueGrant(grants, ask, body.id, grant)) {
    return *std::move(refused);
  } else if (ask.rest) {
    answer.decision = gate.DecideRest(EngineAsk(ask, cancel), ask.tool_path,
                                      ask.path, ask.body);
    answer.http_status = kForbidden;
  } else {
    answer.decision = gate.Decide(EngineAsk(ask, cancel), body);
  }
  return answer;
}

// The Check's server span, a child of the agent's trace context read from
// the headers as the decision reads them (ReadAsk); empty when tracing is
// off (nothing read).
std::optional<trace::RequestTrace> StartCheckTrace(
    trace::Tracer* tracer, const grpc::ServerContextBase& context,
    const CheckRequest& request) {
  if (tracer == nullptr) return std::nullopt;
  const Headers headers = ReadHeaders(request.attributes().request().http());
  return StartMeshTrace(tracer, context, HeaderOr(headers, "traceparent"),
                        HeaderOr(headers, "tracestate"),
                        "envoy.service.auth.v3.Authorization", "Check");
}

}  // namespace

CheckResponse DecideCheck(Engine* engine, GrantStore* grants,
                          const CheckRequest& request,
                          const CancelToken& cancel, MeshOutcome* report,
                          trace::RequestTrace* trace) {
  CheckResponse response;
  Ask ask = ReadAsk(request.attributes().request().http());
  ask.trace = trace;
  const auto& ctx = request.attributes().context_extensions();
  auto tool_path = ctx.find(std::string(kToolPathSetting));
  ask.rest = tool_path != ctx.end();
  if (ask.rest) ask.tool_path = tool_path->second;
  std::string grant;
  const Answer answer = Decide(engine, grants, request, ask, cancel, &grant);
  Report(answer.decision, !ask.run_id.empty(), report);
  // Only an allowed call's answer is checked with the run's grant.
  if (!grant.empty() && !(answer.decision.allowed && answer.decision.called)) {
    grants->Take(grant);
    grant.clear();
  }
  if (report != nullptr) {
    report->decision = answer.decision.label;
    // Only a run the engine resolved: the header is the caller's text.
    if (answer.decision.decided.has_value()) report->run_id = ask.run_id;
  }
  if (answer.decision.allowed) {
    Allow(ask, answer.decision, grant, &response);
  } else {
    Refuse(answer, &response);
  }
  return response;
}

grpc::ServerUnaryReactor* EnvoyAuthzService::Check(
    grpc::CallbackServerContext* context,
    const envoy::service::auth::v3::CheckRequest* request,
    envoy::service::auth::v3::CheckResponse* response) {
  // Without metrics nothing is timed: the clock costs too.
  const auto start = metrics_ != nullptr
                         ? std::chrono::steady_clock::now()
                         : std::chrono::steady_clock::time_point();
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  std::optional<trace::RequestTrace> trace =
      StartCheckTrace(tracer_, *context, *request);
  trace::RequestTrace* span =
      trace.has_value() && trace->recording() ? &*trace : nullptr;
  MeshOutcome outcome;
  try {
    *response = DecideCheck(
        engine_, grants_, *request, ToCancelToken(context),
        metrics_ != nullptr || span != nullptr ? &outcome : nullptr, span);
  } catch (const std::exception& e) {
    // Never an OK: a deny the agent can read.
    response->Clear();
    Refuse(Deny(nullptr, mesh::UnavailableError(e.what()), 200), response);
    outcome = MeshOutcome();
    outcome.decision = "ERROR";
  }
  const grpc::Status status = grpc::Status::OK;
  if (span != nullptr) {
    SetMeshOutcome(*span, outcome);
    SetStatus(*span, status);
  }
  if (metrics_ != nullptr) {
    // The answer is already decided: counting cannot change it.
    static const int slot = ServerMetrics::RpcSlot("ext_authz.Check");
    metrics_->DecidedMesh(slot, outcome);
    const std::chrono::duration<double> took =
        std::chrono::steady_clock::now() - start;
    metrics_->Finished(slot, status, took.count(), request->ByteSizeLong());
  }
  reactor->Finish(status);
  return reactor;
}

}  // namespace server
}  // namespace toolgate
