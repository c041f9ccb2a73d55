#include "bench/load/workload.h"

#include <map>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "client/health_check.h"
#include "grpcpp/impl/client_unary_call.h"

namespace toolgate {
namespace load {
namespace {

// gRPC deadlines are wall-clock (system_clock) time points.
std::chrono::system_clock::time_point Deadline(
    std::chrono::milliseconds timeout) {
  return std::chrono::system_clock::now() + timeout;
}

const std::vector<std::string>& Names(Mix mix) {
  static const auto* kAllow = new std::vector<std::string>{
      "openai_allow", "anthropic_allow", "mcp_allow"};
  static const auto* kReject = new std::vector<std::string>{
      "openai_reject", "anthropic_reject", "mcp_reject"};
  static const auto* kText = new std::vector<std::string>{
      "text_tag",  "text_fence_reasoning", "text_react",
      "text_bare", "text_damaged_strict",  "text_damaged_repair"};
  static const auto* kNone = new std::vector<std::string>();
  switch (mix) {
    case Mix::kAllow:
      return *kAllow;
    case Mix::kReject:
      return *kReject;
    case Mix::kText:
      return *kText;
    default:
      return *kNone;
  }
}

absl::Status FromGrpc(const grpc::Status& s, absl::string_view what) {
  return absl::UnavailableError(absl::StrCat(
      what, ": ", StatusCodeName(s.error_code()), " ", s.error_message()));
}

absl::StatusOr<std::string> SnapshotId(v1::ToolGate::Stub& stub,
                                       const std::string& name,
                                       std::chrono::milliseconds timeout) {
  grpc::ClientContext ctx;
  ctx.set_deadline(Deadline(timeout));
  v1::GetSnapshotRequest req;
  req.set_name(name);
  v1::GetSnapshotResponse resp;
  grpc::Status s = stub.GetSnapshot(&ctx, req, &resp);
  if (!s.ok()) return FromGrpc(s, absl::StrCat("GetSnapshot{", name, "}"));
  return resp.snapshot_id();
}

absl::StatusOr<v1::OpenRunResponse> OpenRun(v1::ToolGate::Stub& stub,
                                            const std::string& snapshot_id,
                                            std::chrono::milliseconds timeout) {
  grpc::ClientContext ctx;
  ctx.set_deadline(Deadline(timeout));
  v1::OpenRunRequest req;
  req.set_snapshot_id(snapshot_id);
  req.set_model("loadgen");
  req.set_max_consecutive_rejects(1000);  // The most the server allows.
  v1::OpenRunResponse resp;
  grpc::Status s = stub.OpenRun(&ctx, req, &resp);
  if (!s.ok()) return FromGrpc(s, "OpenRun");
  return resp;
}

}  // namespace

Item CallItem(const bench::CallPayload& p) {
  Item item;
  if (p.native) {
    item.request.set_native_json(p.output);
  } else {
    item.request.set_text(p.output);
  }
  item.request.set_repair(p.syntax_repair ? v1::REPAIR_POLICY_SYNTAX_REPAIR
                                          : v1::REPAIR_POLICY_STRICT);
  item.expect = p.expect == bench::Expect::kAllow ? v1::DECISION_ALLOW
                                                  : v1::DECISION_REJECT;
  return item;
}

std::vector<std::string> PayloadNames(Mix mix) {
  if (mix != Mix::kMixed) return Names(mix);
  const std::vector<const std::vector<std::string>*> lists = {
      &Names(Mix::kAllow), &Names(Mix::kReject), &Names(Mix::kText)};
  std::vector<std::string> out;
  for (size_t i = 0;; ++i) {
    bool any = false;
    for (const auto* list : lists) {
      if (i < list->size()) {
        out.push_back((*list)[i]);
        any = true;
      }
    }
    if (!any) return out;
  }
}

namespace {

// The snapshot (stateless) or run (run mode) requests on `snapshot` go
// to, resolved once per worker and snapshot name.
class Targets {
 public:
  Targets(v1::ToolGate::Stub& stub, Mode mode,
          std::chrono::milliseconds timeout)
      : stub_(stub), mode_(mode), timeout_(timeout) {}

  absl::StatusOr<const v1::OpenRunResponse*> For(const std::string& name) {
    auto it = targets_.find(name);
    if (it != targets_.end()) return &it->second;
    auto id = SnapshotId(stub_, name, timeout_);
    if (!id.ok()) return id.status();
    v1::OpenRunResponse target;
    target.set_snapshot_id(*id);
    if (mode_ == Mode::kRun) {
      auto run = OpenRun(stub_, *id, timeout_);
      if (!run.ok()) return run.status();
      target = *std::move(run);
    }
    return &targets_.emplace(name, std::move(target)).first->second;
  }

 private:
  v1::ToolGate::Stub& stub_;
  const Mode mode_;
  const std::chrono::milliseconds timeout_;
  std::map<std::string, v1::OpenRunResponse> targets_;  // By snapshot name.
};

absl::StatusOr<std::vector<Item>> CallItems(Targets& targets,
                                            const LoadgenOptions& options) {
  std::vector<Item> items;
  for (const std::string& name : PayloadNames(options.mix)) {
    const bench::CallPayload& p = bench::CallNamed(name);
    auto target = targets.For(p.snapshot);
    if (!target.ok()) return target.status();
    Item item = CallItem(p);
    if (options.mode == Mode::kRun) {
      item.request.set_run_id((*target)->run_id());
      item.request.set_run_token((*target)->run_token());
    } else {
      item.request.set_snapshot_id((*target)->snapshot_id());
    }
    items.push_back(std::move(item));
  }
  return items;
}

absl::StatusOr<std::vector<Item>> VerdictItems(Targets& targets, Mode mode) {
  Item item = VerdictItem();
  if (mode == Mode::kRun) {
    auto target = targets.For(kVerdictRunSnapshot);
    if (!target.ok()) return target.status();
    item.verdict.set_run_id((*target)->run_id());
    item.verdict.set_run_token((*target)->run_token());
  }
  return std::vector<Item>{std::move(item)};
}

}  // namespace

Rpc RpcOf(Mix mix) {
  switch (mix) {
    case Mix::kHealth:
      return Rpc::kHealthCheck;
    case Mix::kVerdict:
      return Rpc::kExtractVerdict;
    case Mix::kAuthz:
      return Rpc::kEnvoyCheck;
    default:
      return Rpc::kValidateToolCall;
  }
}

Item VerdictItem() {
  Item item;
  item.rpc = Rpc::kExtractVerdict;
  item.verdict.set_envelope(bench::VerdictEnvelope());
  item.verdict.set_repair(v1::REPAIR_POLICY_STRICT);
  return item;
}

Item HealthItem() {
  Item item;
  item.rpc = Rpc::kHealthCheck;
  grpc::Slice slice(client::EncodeHealthCheckRequest(""));
  item.health = grpc::ByteBuffer(&slice, 1);
  return item;
}

Item AuthzItem(const bench::CallPayload& p, const std::string& snapshot) {
  Item item;
  item.rpc = Rpc::kEnvoyCheck;
  auto* attributes = item.check.mutable_attributes();
  auto* http = attributes->mutable_request()->mutable_http();
  http->set_id("loadgen");
  http->set_method("POST");
  http->set_path("/mcp");
  http->set_host("tools.internal");
  (*http->mutable_headers())[":method"] = "POST";
  (*http->mutable_headers())[":path"] = "/mcp";
  (*http->mutable_headers())["content-type"] = "application/json";
  const std::string body =
      absl::StrCat(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":)",
                   p.output, "}");
  http->set_raw_body(body);
  http->set_size(static_cast<int64_t>(body.size()));
  (*attributes->mutable_context_extensions())["toolgate_snapshot"] = snapshot;
  return item;
}

namespace {

absl::StatusOr<std::vector<Item>> AuthzItems(Targets& targets, Mode mode) {
  const bench::CallPayload& p = bench::CallNamed(kAuthzPayload);
  auto target = targets.For(p.snapshot);
  if (!target.ok()) return target.status();
  Item item = AuthzItem(p, p.snapshot);
  if (mode == Mode::kRun) {
    auto& headers = *item.check.mutable_attributes()
                         ->mutable_request()
                         ->mutable_http()
                         ->mutable_headers();
    headers["x-toolgate-run-id"] = (*target)->run_id();
    headers["x-toolgate-run-token"] = (*target)->run_token();
    // CloseRuns reads the run from the ValidateToolCall fields.
    item.request.set_run_id((*target)->run_id());
    item.request.set_run_token((*target)->run_token());
  }
  return std::vector<Item>{std::move(item)};
}

}  // namespace

absl::StatusOr<std::vector<Item>> BuildItems(
    v1::ToolGate::Stub& stub, const LoadgenOptions& options,
    std::chrono::milliseconds timeout) {
  Targets targets(stub, options.mode, timeout);
  switch (RpcOf(options.mix)) {
    case Rpc::kHealthCheck:
      return std::vector<Item>{HealthItem()};
    case Rpc::kExtractVerdict:
      return VerdictItems(targets, options.mode);
    case Rpc::kEnvoyCheck:
      return AuthzItems(targets, options.mode);
    case Rpc::kValidateToolCall:
      break;
  }
  return CallItems(targets, options);
}

void CloseRuns(v1::ToolGate::Stub& stub, const std::vector<Item>& items,
               std::chrono::milliseconds timeout) {
  std::set<std::string> closed;
  for (const Item& item : items) {
    const bool verdict = item.rpc == Rpc::kExtractVerdict;
    const std::string& run_id =
        verdict ? item.verdict.run_id() : item.request.run_id();
    if (run_id.empty() || !closed.insert(run_id).second) continue;
    grpc::ClientContext ctx;
    ctx.set_deadline(Deadline(timeout));
    v1::CloseRunRequest req;
    req.set_run_id(run_id);
    req.set_run_token(verdict ? item.verdict.run_token()
                              : item.request.run_token());
    v1::CloseRunResponse resp;
    // A failure only leaves the run open until the server stops.
    (void)stub.CloseRun(&ctx, req, &resp);
  }
}

std::string StatusCodeName(grpc::StatusCode code) {
  static const char* kNames[] = {"OK",
                                 "CANCELLED",
                                 "UNKNOWN",
                                 "INVALID_ARGUMENT",
                                 "DEADLINE_EXCEEDED",
                                 "NOT_FOUND",
                                 "ALREADY_EXISTS",
                                 "PERMISSION_DENIED",
                                 "RESOURCE_EXHAUSTED",
                                 "FAILED_PRECONDITION",
                                 "ABORTED",
                                 "OUT_OF_RANGE",
                                 "UNIMPLEMENTED",
                                 "INTERNAL",
                                 "UNAVAILABLE",
                                 "DATA_LOSS",
                                 "UNAUTHENTICATED"};
  const int c = static_cast<int>(code);
  return c >= 0 && c < 17 ? kNames[c] : absl::StrCat("CODE_", c);
}

std::string OutcomeLabel(int outcome) {
  if (!v1::Outcome_IsValid(outcome)) return absl::StrCat("OUTCOME_", outcome);
  return std::string(absl::StripPrefix(
      v1::Outcome_Name(static_cast<v1::Outcome>(outcome)), "OUTCOME_"));
}

namespace {
constexpr char kHealthCheckMethod[] = "/grpc.health.v1.Health/Check";
}  // namespace

HealthStub::HealthStub(std::shared_ptr<grpc::ChannelInterface> channel)
    : channel_(std::move(channel)),
      method_(kHealthCheckMethod, grpc::internal::RpcMethod::NORMAL_RPC,
              channel_) {}

grpc::Status HealthStub::Check(grpc::ClientContext* context,
                               const grpc::ByteBuffer& request,
                               int* status) const {
  grpc::ByteBuffer response;
  grpc::Status s = grpc::internal::BlockingUnaryCall(
      channel_.get(), method_, context, request, &response);
  if (!s.ok()) return s;
  std::vector<grpc::Slice> slices;
  if (!response.Dump(&slices).ok()) {
    return grpc::Status(grpc::StatusCode::INTERNAL, "unreadable response");
  }
  std::string bytes;
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  absl::StatusOr<int> decoded = client::DecodeHealthCheckResponse(bytes);
  if (!decoded.ok()) {
    return grpc::Status(grpc::StatusCode::INTERNAL,
                        std::string(decoded.status().message()));
  }
  *status = *decoded;
  return grpc::Status::OK;
}

}  // namespace load
}  // namespace toolgate
