#include "server/envoy_authz.h"

#include <chrono>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "core/mesh/mcp_request.h"
#include "server/convert.h"
#include "server/envoy_authz_ask.h"
#include "server/envoy_common.h"

namespace toolgate {
namespace server {
namespace {

using envoy::service::auth::v3::AttributeContext;
using envoy::service::auth::v3::CheckRequest;
using envoy::service::auth::v3::CheckResponse;
using mesh::RpcError;
using authz_internal::Ask;
using authz_internal::ReadAsk;
using authz_internal::ResolveSnapshot;

constexpr int kPermissionDenied = 7;  // google.rpc.Code


// What was decided so far: allowed calls' audit ids, or the deny.
struct Outcome {
  // Fail closed: an Outcome is a deny unless Allowed() made it.
  bool denied = true;
  int http_status = 200;
  Json body;  // The JSON-RPC error (or batch of them) the agent sees.
  std::vector<std::string> audit_ids;
  std::string tool;         // The single tool called, for ext_proc.
  std::string snapshot_id;  // As the engine resolved it (run-only asks).
  bool called = false;
  // The metrics label (envoy_authz.h DecideCheck): a constant.
  absl::string_view label = "DENIED_REQUEST";
};

Outcome Allowed() {
  Outcome o;
  o.denied = false;
  o.label = "PASS_THROUGH";
  return o;
}

// The Check label of one engine answer or error.
absl::string_view LabelOf(const absl::StatusOr<ValidateCallResponse>& decided,
                          const RpcError& error) {
  if (!decided.ok()) {
    return error.code == mesh::kDeniedCode ? "DENIED_RUN" : "ERROR";
  }
  return DecisionName(decided->decision);
}

// What the metrics read from one engine answer.
void Report(const ValidateCallResponse& decided, bool in_run,
            MeshOutcome* report) {
  if (report == nullptr) return;
  for (const Violation& v : decided.violations) {
    report->violations.push_back(v.code);
  }
  for (const CallReport& call : decided.calls) {
    for (const std::string& r : call.repairs) report->repairs.push_back(r);
  }
  report->breaker_opened =
      report->breaker_opened ||
      ServerMetrics::OpensBreaker(in_run, decided.decision == Decision::kReject,
                                  decided.attempt, decided.attempts_left);
}

Outcome Deny(const Json& id, const RpcError& error, int http_status = 200) {
  Outcome o;
  o.http_status = http_status;
  o.body = {
      {"jsonrpc", "2.0"}, {"id", id}, {"error", mesh::ErrorObject(error)}};
  return o;
}


// One call through the pipeline; an error value unless ALLOW, with its
// label in `*label`.
std::optional<RpcError> Validate(
    Engine* engine, const Ask& ask, const std::string& params_json,
    const CancelToken& cancel, std::string* audit_id, std::string* snapshot_id,
    absl::string_view* label, MeshOutcome* report) {
  ValidateCallRequest call;
  call.snapshot_id = ask.snapshot_id;
  call.run_id = ask.run_id;
  call.run_token = ask.run_token;
  call.kind = OutputKind::kNative;
  call.output = params_json;
  call.approval_id = HeaderOr(ask.headers, kApprovalHeader);
  call.cancel = cancel;
  call.source = std::string(kAuthzSource);
  absl::StatusOr<ValidateCallResponse> decided = engine->ValidateToolCall(call);
  if (!decided.ok()) {
    RpcError error = ErrorForStatus(decided.status());
    *label = LabelOf(decided, error);
    return error;
  }
  Report(*decided, !ask.run_id.empty(), report);
  *audit_id = decided->audit_id;
  if (snapshot_id->empty()) *snapshot_id = decided->snapshot_id;
  *label = LabelOf(decided, RpcError());
  if (decided->decision != Decision::kAllow) {
    return mesh::ErrorForDecision(*decided);
  }
  return std::nullopt;
}

// A body toolgate cannot read as a whole.
RpcError BodyError(const absl::Status& status) {
  if (JsonErrorCode(status) == kInputTooLarge) {
    return mesh::DeniedError("body_too_large", status.message());
  }
  return mesh::DeniedError("unreadable_body", status.message());
}

Outcome DecideMcp(Engine* engine, const Ask& ask, const CancelToken& cancel,
                  MeshOutcome* report) {
  absl::StatusOr<mesh::McpBody> body =
      mesh::ReadMcpBody(ask.body, engine->options().limits);
  if (!body.ok()) return Deny(nullptr, BodyError(body.status()));
  Outcome o = Allowed();  // Until a message is denied.
  // The first denied message's label is the answer's.
  absl::string_view deny_label;
  std::vector<std::optional<RpcError>> errors;
  for (const mesh::McpMessage& m : body->messages) {
    std::optional<RpcError> error;
    absl::string_view label = "DENIED_REQUEST";
    if (m.kind == mesh::McpKind::kDeny) {
      error = mesh::DeniedError(m.deny_reason,
                                "this JSON-RPC message is not "
                                "let through (" +
                                    m.deny_reason + ")");
    } else if (m.kind == mesh::McpKind::kToolCall && !o.denied) {
      // Once the batch is denied, later calls are not decided (nothing
      // spent on them: approvals, call budgets); they get batch_denied.
      std::string audit_id;
      error = Validate(engine, ask, m.params_json, cancel, &audit_id,
                       &o.snapshot_id, &label, report);
      if (!audit_id.empty()) o.audit_ids.push_back(audit_id);
      o.called = true;
      o.label = "ALLOW";
      o.tool = body->messages.size() == 1 ? m.tool : "";
    }
    if (error.has_value() && deny_label.empty()) deny_label = label;
    o.denied = o.denied || error.has_value();
    errors.push_back(std::move(error));
  }
  if (!o.denied) return o;
  if (!body->batch) {
    Outcome denied = Deny(body->messages[0].id, *errors[0]);
    denied.label = deny_label;
    return denied;
  }
  Outcome denied = Deny(nullptr, mesh::DeniedError("", ""));
  denied.label = deny_label;
  denied.body = Json::array();
  for (size_t i = 0; i < errors.size(); ++i) {
    const RpcError e =
        errors[i] ? *errors[i]
                  : mesh::DeniedError("batch_denied",
                                      "another message of this batch was "
                                      "denied; send the allowed ones alone");
    denied.body.push_back({{"jsonrpc", "2.0"},
                           {"id", body->messages[i].id},
                           {"error", mesh::ErrorObject(e)}});
  }
  return denied;
}

Outcome DecideRest(Engine* engine, const Ask& ask, const CancelToken& cancel,
                   MeshOutcome* report) {
  constexpr int kForbidden = 403;
  absl::StatusOr<std::string> tool =
      mesh::MatchToolPath(ask.tool_path, ask.path);
  if (!tool.ok()) {
    return Deny(nullptr, mesh::DeniedError("no_tool", tool.status().message()),
                kForbidden);
  }
  absl::StatusOr<Json> arguments =
      ParseStrictJson(ask.body, engine->options().limits);
  if (!arguments.ok())
    return Deny(nullptr, BodyError(arguments.status()), kForbidden);
  const std::string params =
      CanonicalJson({{"name", *tool}, {"arguments", *arguments}});
  Outcome o = Allowed();
  std::string audit_id;
  absl::string_view label;
  std::optional<RpcError> error = Validate(
      engine, ask, params, cancel, &audit_id, &o.snapshot_id, &label, report);
  if (error) {
    Outcome denied = Deny(nullptr, *error, kForbidden);
    denied.label = label;
    return denied;
  }
  o.audit_ids.push_back(audit_id);
  o.called = true;
  o.label = label;
  o.tool = *tool;
  return o;
}

// Everything before the body is read: method, body presence, snapshot.
std::optional<Outcome> Precheck(Engine* engine, const CheckRequest& request,
                                Ask* ask) {
  const int http = ask->rest ? 403 : 200;
  const std::string method = absl::AsciiStrToUpper(ask->method);
  if (!ask->rest && method == "GET") {
    return Deny(nullptr,
                mesh::DeniedError("method_not_allowed",
                                  "GET streams are not served "
                                  "through toolgate"),
                405);
  }
  if (method != "POST" && !(method == "DELETE" && !ask->rest)) {
    return Deny(nullptr,
                mesh::DeniedError("method_not_allowed", "only POST is allowed"),
                ask->rest ? 403 : 405);
  }
  const int64_t size = request.attributes().request().http().size();
  if (absl::AsciiStrToLower(
          HeaderOr(ask->headers, "x-envoy-auth-partial-body")) == "true" ||
      (size > 0 && static_cast<int64_t>(ask->body.size()) < size)) {
    return Deny(nullptr,
                mesh::DeniedError("partial_body",
                                  "the request body was cut off before "
                                  "toolgate saw it (over Envoy's "
                                  "max_request_bytes?)"),
                http);
  }
  if (method == "POST" && ask->body.empty()) {
    return Deny(nullptr,
                mesh::DeniedError("missing_body", "a POST without a body"),
                http);
  }
  absl::StatusOr<std::string> snapshot = ResolveSnapshot(engine, request, *ask);
  if (!snapshot.ok()) {
    return Deny(nullptr,
                mesh::DeniedError("no_snapshot", snapshot.status().message()),
                http);
  }
  ask->snapshot_id = *std::move(snapshot);
  return std::nullopt;
}

void Allow(const Ask& ask, const Outcome& o, const std::string& grant,
           CheckResponse* response) {
  auto* ok = response->mutable_ok_response();
  ok->add_headers_to_remove(std::string(kRunTokenHeader));
  const std::string& snapshot =
      ask.snapshot_id.empty() ? o.snapshot_id : ask.snapshot_id;
  if (snapshot.empty()) {
    ok->add_headers_to_remove(std::string(kSnapshotHeader));
  } else {
    SetHeader(kSnapshotHeader, snapshot, ok->add_headers());
  }
  if (!o.audit_ids.empty()) {
    SetHeader(kAuditIdHeader, absl::StrJoin(o.audit_ids, ","),
              ok->add_headers());
  }
  SetHeader(kToolHeader, o.tool, ok->add_headers());
  if (grant.empty()) {
    ok->add_headers_to_remove(std::string(kRunGrantHeader));
  } else {
    SetHeader(kRunGrantHeader, grant, ok->add_headers());
  }
}

void Refuse(const Outcome& o, CheckResponse* response) {
  response->mutable_status()->set_code(kPermissionDenied);
  response->mutable_status()->set_message("denied by toolgate");
  auto* denied = response->mutable_denied_response();
  denied->mutable_status()->set_code(
      static_cast<envoy::type::v3::StatusCode>(o.http_status));
  SetHeader("content-type", "application/json", denied->add_headers());
  SetHeader(kDeniedHeader, "1", denied->add_headers());
  const bool rest = o.http_status == 403;
  denied->set_body(rest && o.body.is_object()
                       ? CanonicalJson({{"error", o.body["error"]}})
                       : CanonicalJson(o.body));
}

}  // namespace

CheckResponse DecideCheck(Engine* engine, RunGrants* grants,
                          const CheckRequest& request,
                          const CancelToken& cancel, MeshOutcome* report) {
  CheckResponse response;
  Ask ask = ReadAsk(request.attributes().request().http());
  const auto& ctx = request.attributes().context_extensions();
  auto tool_path = ctx.find(std::string(kToolPathSetting));
  ask.rest = tool_path != ctx.end();
  if (ask.rest) ask.tool_path = tool_path->second;
  Outcome outcome;
  if (std::optional<Outcome> early = Precheck(engine, request, &ask)) {
    outcome = *std::move(early);
    if (!ask.rest) {
      outcome.body["id"] =
          mesh::RequestIdOf(ask.body, engine->options().limits);
    }
  } else if (ask.body.empty()) {
    outcome = Allowed();  // DELETE of an MCP session: runs no tool.
  } else {
    outcome = ask.rest ? DecideRest(engine, ask, cancel, report)
                       : DecideMcp(engine, ask, cancel, report);
  }
  // A call in a run needs its grant for ext_proc: without one its answer
  // would be refused after the tool ran, so refuse the call before.
  std::string grant;
  if (!outcome.denied && outcome.called && !ask.run_id.empty()) {
    absl::StatusOr<std::string> issued =
        grants->Issue({ask.run_id, ask.run_token});
    if (issued.ok()) {
      grant = *std::move(issued);
    } else {
      outcome =
          Deny(ask.rest ? Json(nullptr)
                        : mesh::RequestIdOf(ask.body, engine->options().limits),
               mesh::UnavailableError(issued.status().message()),
               ask.rest ? 403 : 200);
      outcome.label = "ERROR";
    }
  }
  if (report != nullptr) {
    report->decision = outcome.label;
    report->run_id = ask.run_id;
  }
  if (outcome.denied) {
    Refuse(outcome, &response);
  } else {
    Allow(ask, outcome, grant, &response);
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
  MeshOutcome outcome;
  try {
    *response = DecideCheck(engine_, grants_, *request, ToCancelToken(context),
                            metrics_ != nullptr ? &outcome : nullptr);
  } catch (const std::exception& e) {
    // Never an OK: a deny the agent can read.
    Outcome o = Deny(nullptr, mesh::UnavailableError(e.what()));
    response->Clear();
    Refuse(o, response);
    outcome = MeshOutcome();
    outcome.decision = "ERROR";
  }
  const grpc::Status status = grpc::Status::OK;
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
