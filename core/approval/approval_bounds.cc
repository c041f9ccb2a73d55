// ApprovalStore's bounds: the caps Request checks, the indexes that keep
// them exact (pending approvals by expiry and per tenant, bytes held), and
// the sweeps that drop expired pending approvals at once and the rest
// after keep_after_expiry. The RPC-facing methods are approval_store.cc.
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/approval/approval_store.h"
#include "core/util/ids.h"

namespace toolgate {

size_t ApprovalBytes(const Approval& approval) {
  size_t bytes = kApprovalOverheadBytes + approval.run_id.size() +
                 approval.tool.size() + approval.arguments_json.size() +
                 approval.model.size();
  for (const auto& [key, value] : approval.run_context) {
    bytes += key.size() + value.size();
  }
  return bytes;
}

absl::string_view ApprovalTenant(const Approval& approval) {
  auto it = approval.run_context.find("tenant");
  return it == approval.run_context.end() ? absl::string_view()
                                          : absl::string_view(it->second);
}

absl::Status ApprovalStore::CheckCaps(const Approval& a,
                                      size_t run_pending) const {
  if (run_pending >= options_.max_pending_per_run) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "run ", a.run_id, " already has ", run_pending,
        " approvals pending (--max_pending_approvals_per_run=",
        options_.max_pending_per_run, "): decide some before asking for more"));
  }
  const absl::string_view tenant = ApprovalTenant(a);
  auto held = pending_per_tenant_.find(tenant);
  const size_t tenant_pending =
      held == pending_per_tenant_.end() ? 0 : held->second;
  if (tenant_pending >= options_.max_pending_per_tenant) {
    return absl::ResourceExhaustedError(
        absl::StrCat("tenant \"", tenant, "\" already has ", tenant_pending,
                     " approvals pending (--max_pending_approvals_per_tenant=",
                     options_.max_pending_per_tenant,
                     "): decide some, or wait until they expire"));
  }
  if (approvals_.size() >= options_.max_approvals) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the approval store is full (", approvals_.size(),
        " approvals; --max_approvals=", options_.max_approvals, ")"));
  }
  const size_t need = ApprovalBytes(a);
  if (bytes_ + need > options_.max_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the approvals held take ", bytes_, " bytes and this one ", need,
        " more (--max_approval_bytes=", options_.max_bytes, ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Approval> ApprovalStore::Insert(Approval approval) {
  absl::StatusOr<std::string> random = RandomHex(16);
  if (!random.ok()) {
    return absl::InternalError(
        absl::StrCat("no random approval id: ", random.status().message()));
  }
  approval.approval_id = absl::StrCat("apr_", *random);
  // 128 random bits do not collide; if they ever seem to, the RNG is
  // broken and overwriting someone's approval would be worse than failing.
  if (approvals_.contains(approval.approval_id)) {
    return absl::InternalError("random approval id collided");
  }
  by_run_[approval.run_id].insert(approval.approval_id);
  pending_by_expiry_.emplace(approval.expires_at, approval.approval_id);
  ++pending_per_tenant_[ApprovalTenant(approval)];
  bytes_ += ApprovalBytes(approval);
  const std::string id = approval.approval_id;
  return approvals_.emplace(id, std::move(approval)).first->second;
}

void ApprovalStore::LeavePending(const Approval& approval) {
  pending_by_expiry_.erase({approval.expires_at, approval.approval_id});
  auto tenant = pending_per_tenant_.find(ApprovalTenant(approval));
  if (tenant != pending_per_tenant_.end() && --tenant->second == 0) {
    pending_per_tenant_.erase(tenant);
  }
}

void ApprovalStore::Erase(
    absl::flat_hash_map<std::string, Approval>::iterator it) {
  const Approval& a = it->second;
  if (a.state == ApprovalState::kPending) LeavePending(a);
  auto run = by_run_.find(a.run_id);
  run->second.erase(a.approval_id);
  if (run->second.empty()) by_run_.erase(run);
  bytes_ -= ApprovalBytes(a);
  approvals_.erase(it);
}

size_t ApprovalStore::Sweep() {
  absl::MutexLock lock(&mu_);
  const absl::Time now = Now();
  last_sweep_ = now;
  return SweepLocked(now);
}

size_t ApprovalStore::SweepLocked(absl::Time now) {
  size_t dropped = DropExpiredPending(now);
  const absl::Time cutoff = now - options_.keep_after_expiry;
  bool any = false;
  for (auto it = approvals_.begin(); it != approvals_.end();) {
    const Approval& a = it->second;
    const bool finished =
        a.state == ApprovalState::kUsed || a.state == ApprovalState::kDenied;
    const bool stale =
        a.expires_at < cutoff || (finished && a.decided_at < cutoff);
    if (!stale) {
      ++it;
      continue;
    }
    Erase(it++);
    any = true;
    ++dropped;
  }
  if (any) {  // A waiter's approval may be gone.
    ++generation_;
    changed_.SignalAll();
  }
  return dropped;
}

size_t ApprovalStore::DropExpiredPending(absl::Time now) {
  size_t dropped = 0;
  while (!pending_by_expiry_.empty() &&
         pending_by_expiry_.begin()->first <= now) {
    const auto [expires_at, id] = *pending_by_expiry_.begin();
    auto it = approvals_.find(id);
    expired_.emplace(id, it->second.run_id);
    expired_order_.emplace_back(expires_at, id);
    Erase(it);  // Also takes it out of pending_by_expiry_.
    ++dropped;
  }
  // Tombstones: ids whose runs may still ask, bounded in time and number.
  while (!expired_order_.empty() &&
         (expired_order_.front().first < now - options_.keep_after_expiry ||
          expired_order_.size() > options_.max_approvals)) {
    expired_.erase(expired_order_.front().second);
    expired_order_.pop_front();
  }
  if (dropped > 0) {  // Waiters on them answer "expired" now.
    ++generation_;
    changed_.SignalAll();
  }
  return dropped;
}

bool ApprovalStore::ExpiredUndecided(absl::string_view run_id,
                                     absl::string_view approval_id) const {
  auto it = expired_.find(approval_id);
  return it != expired_.end() && it->second == run_id;
}

size_t ApprovalStore::size() const {
  absl::MutexLock lock(&mu_);
  return approvals_.size();
}

size_t ApprovalStore::bytes() const {
  absl::MutexLock lock(&mu_);
  return bytes_;
}

size_t ApprovalStore::pending() const {
  absl::MutexLock lock(&mu_);
  return pending_by_expiry_.size();
}

size_t ApprovalStore::pending_of_tenant(absl::string_view tenant) const {
  absl::MutexLock lock(&mu_);
  auto it = pending_per_tenant_.find(tenant);
  return it == pending_per_tenant_.end() ? 0 : it->second;
}

}  // namespace toolgate
