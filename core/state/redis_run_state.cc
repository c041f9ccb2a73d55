#include "core/state/redis_run_state.h"

#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "core/approval/approval_store.h"
#include "core/run/open_checks.h"
#include "core/state/redis_layout.h"
#include "core/state/redis_reply.h"
#include "core/state/redis_run_scripts.h"
#include "core/state/redis_token.h"
#include "core/util/ids.h"

namespace toolgate {
namespace state {
namespace {

namespace layout = redis_layout;

absl::string_view KindName(CallPlan::Approval kind) {
  switch (kind) {
    case CallPlan::Approval::kParallel:
      return "parallel";
    case CallPlan::Approval::kRequest:
      return "request";
    case CallPlan::Approval::kConsume:
      return "consume";
    case CallPlan::Approval::kNone:
      break;
  }
  return "none";
}

void AddCharges(const std::vector<BudgetCharge>& charges,
                std::vector<std::string>* args) {
  args->push_back(absl::StrCat(charges.size()));
  for (const BudgetCharge& c : charges) {
    args->push_back(c.tool);
    args->push_back(absl::StrCat(static_cast<int>(c.side_effect)));
    args->push_back(absl::StrCat(c.tool_limit));
    args->push_back(absl::StrCat(c.class_limit));
  }
}

int64_t Ms(absl::Duration d) { return absl::ToInt64Milliseconds(d); }

}  // namespace

bool IsApprovalId(absl::string_view id) {
  if (id.size() != 36 || id.substr(0, 4) != "apr_") return false;
  for (char c : id.substr(4)) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

namespace {

std::string TenantOf(const Run& run) {
  auto it = run.context().find(kTenantContextKey);
  return it == run.context().end() ? "" : it->second;
}

// What the approval this plan asks for will hold, counted as the memory
// store counts it (--max_approval_bytes means the same with either).
size_t NewApprovalBytes(const Run& run, const CallPlan& plan) {
  Approval approval;
  approval.run_id = run.id();
  approval.tool = plan.tool;
  approval.arguments_json = plan.arguments_json;
  approval.model = run.model();
  approval.run_context = run.context();
  return ApprovalBytes(approval);
}

std::string TokenHash(absl::string_view token) {
  return StoredTokenHash(token);
}

absl::Status RunGone(const Run& run) {
  return absl::NotFoundError(
      absl::StrCat("no open run \"", run.id(),
                   "\" (closed, idle too long, or never opened)"));
}

// The OK answer of CallCommit (redis_run_scripts.cc) as an outcome.
absl::StatusOr<CallOutcome> ParseCommitted(const ReplyReader& r) {
  CallOutcome out;
  const std::string decision = r.String(1);
  if (decision == "ALLOW") {
    out.decision = Decision::kAllow;
  } else if (decision == "NEEDS") {
    out.decision = Decision::kNeedsApproval;
  } else if (decision == "REJECT") {
    out.decision = Decision::kReject;
  } else {
    return r.Unexpected();
  }
  out.read_only = r.Integer(2) == 1;
  out.approval_id = r.String(3);
  out.refused_approval.code = r.String(4);
  out.refused_approval.message = r.String(5);
  out.budget_refused = static_cast<int>(r.Integer(6));
  out.loop_recorded = r.Integer(7) == 1;
  out.loop.attempt = static_cast<int>(r.Integer(8));
  out.loop.attempts_left = static_cast<int>(r.Integer(9));
  out.approval_consumed = r.Integer(10) == 1;
  out.budget_spent = r.Integer(11) == 1;
  if (!r.ok()) return r.Unexpected();
  return out;
}

}  // namespace

absl::StatusOr<redis::Reply> RedisRunState::Commit(
    const Run& run, const CallPlan& plan, const std::string& approval_id,
    bool admitted) {
  const std::string& prefix = options_.key_prefix;
  const std::string run_key = layout::RunKey(prefix, run.id());
  const std::vector<std::string> keys = {
      run_key,
      approval_id.empty() ? run_key
                          : layout::ApprovalKey(prefix, run.id(), approval_id),
      layout::PendingApprovalsKey(prefix, run.id()),
      layout::SameApprovalKey(prefix, run.id()),
      layout::RunApprovalIdsKey(prefix, run.id())};
  std::vector<std::string> args = {
      run.id(),
      plan.allowable ? "1" : "0",
      plan.misformat ? "1" : "0",
      plan.has_write ? "1" : "0",
      std::string(KindName(plan.approval)),
      approval_id,
      plan.tool,
      plan.arguments_json,
      admitted ? "1" : "0",
      absl::StrCat(Ms(options_.approval_ttl)),
      absl::StrCat(options_.max_pending_per_run),
      absl::StrCat(Ms(options_.keep_after_expiry)),
      TokenHash(plan.run_token)};
  AddCharges(plan.charges, &args);
  return client_.Eval(redis_scripts::CallCommit(), keys, args);
}

std::vector<std::string> RedisRunState::AdmissionKeys(
    const Run& run, const std::string& id) const {
  const std::string& prefix = options_.key_prefix;
  return {layout::TenantApprovalsKey(prefix, TenantOf(run)),
          layout::AllApprovalsKey(prefix),
          layout::ApprovalIndexKey(prefix, id),
          layout::ApprovalBytesKey(prefix)};
}

absl::StatusOr<redis::Reply> RedisRunState::CommitNewApproval(
    const Run& run, const CallPlan& plan) {
  absl::StatusOr<std::string> random = RandomHex(16);
  if (!random.ok()) return random.status();
  const std::string id = absl::StrCat("apr_", *random);
  absl::StatusOr<redis::Reply> first = Commit(run, plan, id, false);
  if (!first.ok() || ReplyReader(*first, client_, "call_commit").Head() !=
                         "ADMIT") {
    return first;  // The identical pending one, a refusal, or an error.
  }
  const std::vector<std::string> keys = AdmissionKeys(run, id);
  absl::StatusOr<redis::Reply> admitted = client_.Eval(
      redis_scripts::ApprovalAdmit(), keys,
      {id, run.id(), absl::StrCat(Ms(options_.approval_ttl)),
       absl::StrCat(Ms(options_.keep_after_expiry)),
       absl::StrCat(options_.max_pending_per_tenant),
       absl::StrCat(options_.max_approvals),
       absl::StrCat(NewApprovalBytes(run, plan)),
       absl::StrCat(options_.max_bytes)});
  if (!admitted.ok()) return admitted.status();
  ReplyReader admission(*admitted, client_, "approval_admit");
  if (admission.Head() == "CAP_TENANT") {
    return absl::ResourceExhaustedError(absl::StrCat(
        "tenant \"", TenantOf(run), "\" already has ", admission.Integer(1),
        " approvals pending (--max_pending_approvals_per_tenant=",
        options_.max_pending_per_tenant,
        "): decide some, or wait until they expire"));
  }
  if (admission.Head() == "CAP_ALL") {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the approval store is full (", admission.Integer(1),
        " approvals; --max_approvals=", options_.max_approvals, ")"));
  }
  if (admission.Head() == "CAP_BYTES") {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the approvals held take ", admission.Integer(1),
        " bytes and this one ", NewApprovalBytes(run, plan),
        " more (--max_approval_bytes=", options_.max_bytes, ")"));
  }
  if (admission.Head() != "OK") return admission.Unexpected();
  absl::StatusOr<redis::Reply> second = Commit(run, plan, id, true);
  // Not created after all (a twin made the same request, or the run
  // changed meanwhile): the admission goes back. With no answer it may
  // have been created: the admission stays and lapses with it.
  if (second.ok() &&
      ReplyReader(*second, client_, "call_commit").String(3) != id) {
    client_.Eval(redis_scripts::ApprovalUnadmit(), keys, {id}).IgnoreError();
  }
  return second;
}

absl::StatusOr<CallOutcome> RedisRunState::CommitCall(Run& run,
                                                      const CallPlan& plan) {
  // The commit is where a cached run's token is checked: never without one.
  if (plan.run_token.empty()) return MissingTokenError();
  // An id that is not one this store draws names no key: it is refused as
  // an unknown approval (approval_mismatch), and no caller text reaches a
  // key name.
  const std::string presented =
      IsApprovalId(plan.approval_id) ? plan.approval_id : "";
  absl::StatusOr<redis::Reply> reply =
      plan.approval == CallPlan::Approval::kRequest
          ? CommitNewApproval(run, plan)
          : Commit(run, plan, presented, false);
  if (!reply.ok()) return reply.status();
  ReplyReader r(*reply, client_, "call_commit");
  const std::string head = r.Head();
  if (head == "OK") return ParseCommitted(r);
  if (head == "NOTFOUND") return RunGone(run);
  if (head == "DENIED") return TokenMismatchError();
  if (head == "STOP") {
    CallOutcome out;
    out.stop = true;
    out.decision = Decision::kStop;
    out.loop.attempt = static_cast<int>(r.Integer(1));
    out.loop.breaker_open = true;
    if (!r.ok()) return r.Unexpected();
    return out;
  }
  if (head == "CAP_RUN") {
    return absl::ResourceExhaustedError(absl::StrCat(
        "run ", run.id(), " already has ", r.Integer(1),
        " approvals pending (--max_pending_approvals_per_run=",
        options_.max_pending_per_run, "): decide some before asking for more"));
  }
  return r.Unexpected();
}

void RedisRunState::RefundCall(Run& run, const CallPlan& plan,
                               const CallOutcome& outcome) {
  const std::string& prefix = options_.key_prefix;
  const std::string run_key = layout::RunKey(prefix, run.id());
  const std::vector<std::string> keys = {
      run_key, outcome.approval_consumed
                   ? layout::ApprovalKey(prefix, run.id(), outcome.approval_id)
                   : run_key};
  std::vector<std::string> args = {outcome.approval_consumed ? "1" : "0"};
  AddCharges(outcome.budget_spent ? plan.charges : std::vector<BudgetCharge>(),
             &args);
  // Best effort: a refund the store does not take leaves the spend in
  // place, which errs on refusing later calls, never on allowing them.
  client_.Eval(redis_scripts::CallRefund(), keys, args).IgnoreError();
}

absl::StatusOr<bool> RedisRunState::RecordOutput(
    Run& run, absl::string_view run_token, output::OutputVerdict verdict) {
  if (run_token.empty()) return MissingTokenError();
  // Anything but an explicit VALID counts against the run.
  const std::string bit = verdict == output::OutputVerdict::kValid ? "0" : "1";
  absl::StatusOr<redis::Reply> reply =
      client_.Eval(redis_scripts::OutputRecord(),
                   {layout::RunKey(options_.key_prefix, run.id())},
                   {bit, TokenHash(run_token)});
  if (!reply.ok()) return reply.status();
  ReplyReader r(*reply, client_, "output_record");
  if (r.Head() == "NOTFOUND") return RunGone(run);
  if (r.Head() == "DENIED") return TokenMismatchError();
  const bool read_only = r.Integer(1) == 1;
  if (r.Head() != "OK" || !r.ok()) return r.Unexpected();
  return read_only;
}

absl::Status RedisRunState::Reset(Run& run) {
  absl::StatusOr<redis::Reply> reply =
      client_.Eval(redis_scripts::RunReset(),
                   {layout::RunKey(options_.key_prefix, run.id())}, {});
  if (!reply.ok()) return reply.status();
  if (reply->str == "NOTFOUND") return RunGone(run);
  if (reply->str != "OK") {
    return ReplyReader(*reply, client_, "run_reset").Unexpected();
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> RedisRunState::BeginWait(Run& run, int max,
                                              absl::Duration timeout,
                                              std::string* ticket) {
  absl::StatusOr<std::string> id = RandomHex(8);
  if (!id.ok()) return id.status();
  const std::string& prefix = options_.key_prefix;
  // A second past the wait's own end: a replica that dies mid-wait stops
  // holding the slot then.
  absl::StatusOr<redis::Reply> reply = client_.Eval(
      redis_scripts::WaitBegin(),
      {layout::RunKey(prefix, run.id()), layout::RunWaitsKey(prefix, run.id())},
      {*id, absl::StrCat(max), absl::StrCat(Ms(timeout) + 1000)});
  if (!reply.ok()) return reply.status();
  ReplyReader r(*reply, client_, "wait_begin");
  if (r.Head() == "NOTFOUND") return RunGone(run);
  if (r.Head() == "FULL") return false;
  if (r.Head() != "OK") return r.Unexpected();
  *ticket = *std::move(id);
  return true;
}

void RedisRunState::EndWait(Run& run, const std::string& ticket) {
  // Best effort: a slot not given back lapses at its deadline.
  client_
      .Run("wait_end",
           {"ZREM", layout::RunWaitsKey(options_.key_prefix, run.id()), ticket})
      .IgnoreError();
}

}  // namespace state
}  // namespace toolgate
