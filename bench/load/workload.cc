#include "bench/load/workload.h"

#include <map>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

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
      "text_tag",   "text_fence_reasoning", "text_react",
      "text_bare",  "text_damaged_strict",  "text_damaged_repair"};
  return mix == Mix::kAllow ? *kAllow : mix == Mix::kReject ? *kReject : *kText;
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

absl::StatusOr<std::vector<Item>> BuildItems(
    v1::ToolGate::Stub& stub, const LoadgenOptions& options,
    std::chrono::milliseconds timeout) {
  std::map<std::string, v1::OpenRunResponse> targets;  // snapshot name ->
  std::vector<Item> items;
  for (const std::string& name : PayloadNames(options.mix)) {
    const bench::CallPayload& p = bench::CallNamed(name);
    auto it = targets.find(p.snapshot);
    if (it == targets.end()) {
      auto id = SnapshotId(stub, p.snapshot, timeout);
      if (!id.ok()) return id.status();
      v1::OpenRunResponse target;
      target.set_snapshot_id(*id);
      if (options.mode == Mode::kRun) {
        auto run = OpenRun(stub, *id, timeout);
        if (!run.ok()) return run.status();
        target = *std::move(run);
      }
      it = targets.emplace(p.snapshot, std::move(target)).first;
    }
    Item item = CallItem(p);
    if (options.mode == Mode::kRun) {
      item.request.set_run_id(it->second.run_id());
      item.request.set_run_token(it->second.run_token());
    } else {
      item.request.set_snapshot_id(it->second.snapshot_id());
    }
    items.push_back(std::move(item));
  }
  return items;
}

void CloseRuns(v1::ToolGate::Stub& stub, const std::vector<Item>& items,
               std::chrono::milliseconds timeout) {
  std::set<std::string> closed;
  for (const Item& item : items) {
    const std::string& run_id = item.request.run_id();
    if (run_id.empty() || !closed.insert(run_id).second) continue;
    grpc::ClientContext ctx;
    ctx.set_deadline(Deadline(timeout));
    v1::CloseRunRequest req;
    req.set_run_id(run_id);
    req.set_run_token(item.request.run_token());
    v1::CloseRunResponse resp;
    // A failure only leaves the run open until the server stops.
    (void)stub.CloseRun(&ctx, req, &resp);
  }
}

std::string StatusCodeName(grpc::StatusCode code) {
  static const char* kNames[] = {
      "OK",           "CANCELLED",         "UNKNOWN",
      "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
      "FAILED_PRECONDITION", "ABORTED",     "OUT_OF_RANGE",
      "UNIMPLEMENTED", "INTERNAL",         "UNAVAILABLE",
      "DATA_LOSS",     "UNAUTHENTICATED"};
  const int c = static_cast<int>(code);
  return c >= 0 && c < 17 ? kNames[c] : absl::StrCat("CODE_", c);
}

}  // namespace load
}  // namespace toolgate
