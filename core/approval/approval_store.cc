#include "core/approval/approval_store.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace toolgate {
namespace {

// Sweeping scans every approval; once a second bounds that cost while
// still keeping memory bounded.
constexpr absl::Duration kSweepEvery = absl::Seconds(1);
// How often Await asks `cancelled`, so a client that went away frees the
// thread soon.
constexpr absl::Duration kCancelPoll = absl::Milliseconds(100);

// The state as of `now`: an undecided or unused approval past its expiry
// is expired, whatever is stored.
ApprovalState StateAt(const Approval& a, absl::Time now) {
  if ((a.state == ApprovalState::kPending ||
       a.state == ApprovalState::kApproved) &&
      now >= a.expires_at) {
    return ApprovalState::kExpired;
  }
  return a.state;
}

Approval AsOf(const Approval& a, absl::Time now) {
  Approval copy = a;
  copy.state = StateAt(a, now);
  return copy;
}

Consumption Refuse(absl::string_view code, std::string message) {
  return Consumption{std::string(code), std::move(message)};
}

}  // namespace

absl::string_view ApprovalStateName(ApprovalState state) {
  switch (state) {
    case ApprovalState::kPending:
      return "PENDING";
    case ApprovalState::kApproved:
      return "APPROVED";
    case ApprovalState::kDenied:
      return "DENIED";
    case ApprovalState::kExpired:
      return "EXPIRED";
    case ApprovalState::kUsed:
      return "USED";
    case ApprovalState::kUnspecified:
      break;
  }
  return "UNSPECIFIED";
}

ApprovalStore::ApprovalStore(ApprovalStoreOptions options)
    : options_(std::move(options)) {}

absl::Time ApprovalStore::Now() const {
  return options_.now ? options_.now() : absl::Now();
}

const Approval* ApprovalStore::FindForRun(absl::string_view run_id,
                                          absl::string_view approval_id) const {
  auto it = approvals_.find(approval_id);
  if (it == approvals_.end() || it->second.run_id != run_id) return nullptr;
  return &it->second;
}

const Approval* ApprovalStore::PendingOf(absl::string_view run_id,
                                         absl::string_view tool,
                                         absl::string_view arguments_json,
                                         absl::Time now,
                                         size_t* pending) const {
  *pending = 0;
  const Approval* same = nullptr;
  auto run = by_run_.find(run_id);
  if (run == by_run_.end()) return nullptr;
  for (const std::string& id : run->second) {
    const Approval& a = approvals_.at(id);
    if (StateAt(a, now) != ApprovalState::kPending) continue;
    ++*pending;
    if (a.tool == tool && a.arguments_json == arguments_json) same = &a;
  }
  return same;
}

absl::StatusOr<Approval> ApprovalStore::Request(
    absl::string_view run_id, absl::string_view tool,
    absl::string_view arguments_json,
    const std::map<std::string, std::string>& run_context,
    absl::string_view model) {
  if (run_id.empty() || tool.empty()) {
    return absl::InvalidArgumentError(
        "an approval needs a run_id and a tool to be bound to");
  }
  absl::MutexLock lock(&mu_);
  const absl::Time now = Now();
  // Expired pending approvals hold no slot: none counts below.
  DropExpiredPending(now);
  if (now - last_sweep_ >= kSweepEvery) {
    SweepLocked(now);
    last_sweep_ = now;
  }
  size_t pending = 0;
  if (const Approval* same =
          PendingOf(run_id, tool, arguments_json, now, &pending)) {
    return AsOf(*same, now);
  }
  Approval a;
  a.run_id = std::string(run_id);
  a.tool = std::string(tool);
  a.arguments_json = std::string(arguments_json);
  a.state = ApprovalState::kPending;
  a.created_at = now;
  a.expires_at = now + options_.ttl;
  a.run_context = run_context;
  a.model = std::string(model);
  if (absl::Status full = CheckCaps(a, pending); !full.ok()) return full;
  return Insert(std::move(a));
}

std::vector<Approval> ApprovalStore::List(absl::string_view run_id,
                                          ApprovalState state) {
  std::vector<Approval> out;
  {
    absl::MutexLock lock(&mu_);
    const absl::Time now = Now();
    DropExpiredPending(now);
    auto keep = [&](const Approval& a) {
      if (state != ApprovalState::kUnspecified && StateAt(a, now) != state) {
        return;
      }
      out.push_back(AsOf(a, now));
    };
    if (run_id.empty()) {
      for (const auto& [id, a] : approvals_) keep(a);
    } else if (auto run = by_run_.find(run_id); run != by_run_.end()) {
      for (const std::string& id : run->second) keep(approvals_.at(id));
    }
  }
  std::sort(out.begin(), out.end(), [](const Approval& a, const Approval& b) {
    if (a.created_at != b.created_at) return a.created_at < b.created_at;
    return a.approval_id < b.approval_id;
  });
  return out;
}

absl::StatusOr<Approval> ApprovalStore::Decide(absl::string_view approval_id,
                                               bool approve,
                                               absl::string_view approver,
                                               absl::string_view reason) {
  if (approval_id.empty()) {
    return absl::InvalidArgumentError("deciding needs an approval_id");
  }
  if (approver.empty()) {
    return absl::InvalidArgumentError(
        "deciding needs an approver: who decided goes into the record");
  }
  absl::MutexLock lock(&mu_);
  const absl::Time now = Now();
  DropExpiredPending(now);
  auto it = approvals_.find(approval_id);
  if (it == approvals_.end()) {
    if (expired_.contains(approval_id)) {
      return absl::FailedPreconditionError(
          absl::StrCat("approval ", approval_id, " is expired, not pending"));
    }
    return absl::NotFoundError(absl::StrCat("no approval ", approval_id));
  }
  Approval& a = it->second;
  const ApprovalState current = StateAt(a, now);
  if (current != ApprovalState::kPending) {
    return absl::FailedPreconditionError(absl::StrCat(
        "approval ", approval_id, " is ",
        absl::AsciiStrToLower(ApprovalStateName(current)), ", not pending"));
  }
  LeavePending(a);
  a.state = approve ? ApprovalState::kApproved : ApprovalState::kDenied;
  a.approver = std::string(approver);
  a.reason = std::string(reason);
  a.decided_at = now;
  ++generation_;
  changed_.SignalAll();  // Every Await of this approval must see it.
  return AsOf(a, now);
}

absl::StatusOr<ApprovalState> ApprovalStore::Await(
    absl::string_view run_id, absl::string_view approval_id,
    absl::Duration timeout, const std::function<bool()>& cancelled) const {
  // The timeout is real time even with an injected clock: it bounds how
  // long this thread is held, which the injected clock cannot advance.
  const absl::Time give_up =
      absl::Now() + std::max(timeout, absl::ZeroDuration());
  const absl::Duration poll =
      cancelled ? kCancelPoll : absl::InfiniteDuration();
  while (true) {
    absl::StatusOr<ApprovalState> state =
        WaitOnce(run_id, approval_id, give_up, poll);
    if (!state.ok() || *state != ApprovalState::kPending) return state;
    if (absl::Now() >= give_up) return state;
    // Asked without the lock: it is the caller's code.
    if (cancelled && cancelled()) return state;
  }
}

absl::StatusOr<ApprovalState> ApprovalStore::WaitOnce(
    absl::string_view run_id, absl::string_view approval_id, absl::Time give_up,
    absl::Duration poll) const {
  absl::MutexLock lock(&mu_);
  const Approval* a = FindForRun(run_id, approval_id);
  if (a == nullptr) {
    if (ExpiredUndecided(run_id, approval_id)) return ApprovalState::kExpired;
    return absl::NotFoundError(
        absl::StrCat("run ", run_id, " has no approval ", approval_id));
  }
  const ApprovalState state = StateAt(*a, Now());
  if (state != ApprovalState::kPending) return state;
  // Wake at expiry too; expires_at is on the store's clock, so convert
  // what is left of it to real time.
  const absl::Time real_now = absl::Now();
  const absl::Time wake =
      std::min({give_up, real_now + poll, real_now + (a->expires_at - Now())});
  // A CondVar rather than Mutex::Await(Condition): the predicate is then
  // read by this code after the wait returns, never by the library while
  // it waits, which the TSan annotations in bazel/tsan/ can follow.
  const uint64_t seen = generation_;
  while (generation_ == seen) {
    if (changed_.WaitWithDeadline(&mu_, wake)) break;  // Deadline reached.
  }
  a = FindForRun(run_id, approval_id);  // Sweep may have dropped it.
  if (a == nullptr) {
    if (ExpiredUndecided(run_id, approval_id)) return ApprovalState::kExpired;
    return absl::NotFoundError(
        absl::StrCat("run ", run_id, " has no approval ", approval_id));
  }
  return StateAt(*a, Now());
}

Consumption ApprovalStore::Consume(absl::string_view run_id,
                                   absl::string_view approval_id,
                                   absl::string_view tool,
                                   absl::string_view arguments_json) {
  absl::MutexLock lock(&mu_);
  DropExpiredPending(Now());
  auto it = approvals_.find(approval_id);
  if (it == approvals_.end() && ExpiredUndecided(run_id, approval_id)) {
    return Refuse("approval_expired",
                  "the approval expired before anyone decided it; ask again");
  }
  // An unknown id and another run's id read the same: a run must not
  // learn which ids exist elsewhere.
  if (approval_id.empty() || it == approvals_.end() ||
      it->second.run_id != run_id) {
    return Refuse("approval_mismatch",
                  "no such approval for this run (approvals are per run)");
  }
  Approval& a = it->second;
  if (a.tool != tool) {
    return Refuse("approval_mismatch", "the approval is for another tool");
  }
  if (a.arguments_json != arguments_json) {
    return Refuse("approval_mismatch",
                  "the approval is for other arguments of this tool");
  }
  switch (StateAt(a, Now())) {
    case ApprovalState::kApproved:
      a.state = ApprovalState::kUsed;
      return Consumption{};
    case ApprovalState::kPending:
      return Refuse("approval_pending", "the approval is not decided yet");
    case ApprovalState::kDenied:
      return Refuse("approval_denied",
                    absl::StrCat("denied by ", a.approver,
                                 a.reason.empty() ? "" : ": ", a.reason));
    case ApprovalState::kExpired:
      return Refuse("approval_expired", "the approval expired; ask again");
    case ApprovalState::kUsed:
      return Refuse("approval_used",
                    "the approval was already used; each allows one call");
    case ApprovalState::kUnspecified:
      break;
  }
  return Refuse("approval_mismatch", "the approval is in no usable state");
}

void ApprovalStore::Release(absl::string_view approval_id) {
  absl::MutexLock lock(&mu_);
  auto it = approvals_.find(approval_id);
  if (it != approvals_.end() && it->second.state == ApprovalState::kUsed) {
    it->second.state = ApprovalState::kApproved;
  }
}

}  // namespace toolgate
