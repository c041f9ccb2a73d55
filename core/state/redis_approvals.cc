// RedisApprovalLedger (redis_run_state.h): list, decide and wait for the
// approvals the run commits created.
#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/state/redis_approval_events.h"
#include "core/state/redis_layout.h"
#include "core/state/redis_reply.h"
#include "core/state/redis_run_scripts.h"
#include "core/state/redis_run_state.h"
#include "nlohmann/json.hpp"

namespace toolgate {
namespace state {
namespace {

namespace layout = redis_layout;

ApprovalState StateNamed(absl::string_view name) {
  for (ApprovalState s : {ApprovalState::kPending, ApprovalState::kApproved,
                          ApprovalState::kDenied, ApprovalState::kExpired,
                          ApprovalState::kUsed}) {
    if (ApprovalStateName(s) == name) return s;
  }
  return ApprovalState::kUnspecified;
}

absl::Time FromMs(absl::string_view ms) {
  int64_t v = 0;
  return absl::SimpleAtoi(ms, &v) ? absl::FromUnixMillis(v)
                                  : absl::InfinitePast();
}

std::map<std::string, std::string> ContextOf(const std::string& json) {
  std::map<std::string, std::string> out;
  const nlohmann::json parsed = nlohmann::json::parse(json, nullptr, false);
  if (!parsed.is_object()) return out;
  for (const auto& [key, value] : parsed.items()) {
    if (value.is_string()) out[key] = value.get<std::string>();
  }
  return out;
}

// An HGETALL answer as an approval, its state as of `now` (the server's);
// nullopt for a missing or malformed one.
std::optional<Approval> ApprovalOf(absl::string_view id,
                                   const redis::Reply& fields, absl::Time now) {
  if (fields.type != redis::Reply::Type::kArray || fields.elements.empty()) {
    return std::nullopt;
  }
  std::map<std::string, std::string> f;
  for (size_t i = 0; i + 1 < fields.elements.size(); i += 2) {
    f[fields.elements[i].str] = fields.elements[i + 1].str;
  }
  Approval a;
  a.approval_id = std::string(id);
  a.run_id = f["run"];
  a.tool = f["tool"];
  a.arguments_json = f["args"];
  a.state = StateNamed(f["state"]);
  a.created_at = FromMs(f["created"]);
  a.expires_at = FromMs(f["expires"]);
  a.model = f["model"];
  a.run_context = ContextOf(f["ctx"]);
  a.approver = f["approver"];
  a.reason = f["reason"];
  if (f.count("decided")) a.decided_at = FromMs(f["decided"]);
  if (a.state == ApprovalState::kUnspecified || a.run_id.empty()) {
    return std::nullopt;
  }
  if ((a.state == ApprovalState::kPending ||
       a.state == ApprovalState::kApproved) &&
      now >= a.expires_at) {
    a.state = ApprovalState::kExpired;
  }
  return a;
}

// The server's clock from a TIME answer.
absl::Time ServerTime(const redis::Reply& time) {
  if (time.elements.size() != 2) return absl::InfinitePast();
  int64_t s = 0, us = 0;
  if (!absl::SimpleAtoi(time.elements[0].str, &s) ||
      !absl::SimpleAtoi(time.elements[1].str, &us)) {
    return absl::InfinitePast();
  }
  return absl::FromUnixMicros(s * 1000000 + us);
}

}  // namespace

absl::StatusOr<std::vector<std::string>> RedisApprovalLedger::IdsOf(
    absl::string_view run_id) {
  const std::string key =
      run_id.empty() ? layout::AllApprovalsKey(options_.key_prefix)
                     : layout::RunApprovalIdsKey(options_.key_prefix, run_id);
  absl::StatusOr<redis::Reply> ids =
      client_.Run("approval_ids", {"ZRANGE", key, "0", "-1"});
  if (!ids.ok()) return ids.status();
  if (ids->type != redis::Reply::Type::kArray) {
    return ReplyReader(*ids, client_, "approval_ids").Unexpected();
  }
  std::vector<std::string> out;
  for (const redis::Reply& e : ids->elements) out.push_back(e.str);
  return out;
}

absl::StatusOr<std::vector<Approval>> RedisApprovalLedger::List(
    absl::string_view run_id, ApprovalState state) {
  absl::StatusOr<std::vector<std::string>> ids = IdsOf(run_id);
  if (!ids.ok()) return ids.status();
  std::vector<std::string> runs(ids->size(), std::string(run_id));
  if (run_id.empty() && !ids->empty()) {
    std::vector<redis::Command> lookups;
    for (const std::string& id : *ids) {
      lookups.push_back(
          {"GET", layout::ApprovalIndexKey(options_.key_prefix, id)});
    }
    auto found = client_.Pipeline("approval_runs", lookups);
    if (!found.ok()) return found.status();
    for (size_t i = 0; i < runs.size(); ++i) runs[i] = (*found)[i].str;
  }
  std::vector<redis::Command> reads;
  for (size_t i = 0; i < ids->size(); ++i) {
    reads.push_back({"HGETALL", layout::ApprovalKey(options_.key_prefix,
                                                    runs[i], (*ids)[i])});
  }
  reads.push_back({"TIME"});
  auto replies = client_.Pipeline("approval_list", reads);
  if (!replies.ok()) return replies.status();
  const absl::Time now = ServerTime(replies->back());
  if (now == absl::InfinitePast()) {
    return ReplyReader(replies->back(), client_, "TIME").Unexpected();
  }
  std::vector<Approval> out;
  for (size_t i = 0; i < ids->size(); ++i) {
    std::optional<Approval> a = ApprovalOf((*ids)[i], (*replies)[i], now);
    // Gone, or pending past its expiry: not listed (as in memory).
    if (!a.has_value() || runs[i].empty()) continue;
    if (a->state == ApprovalState::kExpired && a->decided_at ==
        absl::InfinitePast()) {
      continue;
    }
    if (state != ApprovalState::kUnspecified && a->state != state) continue;
    out.push_back(*std::move(a));
  }
  std::sort(out.begin(), out.end(), [](const Approval& x, const Approval& y) {
    return std::tie(x.created_at, x.approval_id) <
           std::tie(y.created_at, y.approval_id);
  });
  return out;
}

absl::StatusOr<RedisApprovalLedger::Loaded> RedisApprovalLedger::Load(
    absl::string_view run_id, absl::string_view approval_id) {
  if (!IsApprovalId(approval_id)) {
    return absl::NotFoundError(
        absl::StrCat("run ", run_id, " has no approval ", approval_id));
  }
  auto replies = client_.Pipeline(
      "approval_load", {{"HGETALL", layout::ApprovalKey(options_.key_prefix,
                                                        run_id, approval_id)},
                        {"TIME"}});
  if (!replies.ok()) return replies.status();
  const absl::Time now = ServerTime((*replies)[1]);
  // Without the store's clock no expiry could be judged.
  if (now == absl::InfinitePast()) {
    return ReplyReader((*replies)[1], client_, "TIME").Unexpected();
  }
  std::optional<Approval> a = ApprovalOf(approval_id, (*replies)[0], now);
  if (!a.has_value() || a->run_id != run_id) {
    return absl::NotFoundError(
        absl::StrCat("run ", run_id, " has no approval ", approval_id));
  }
  const absl::Duration left = a->expires_at - now;
  return Loaded{*std::move(a), left};
}

absl::StatusOr<Approval> RedisApprovalLedger::Decide(
    absl::string_view approval_id, bool approve, absl::string_view approver,
    absl::string_view reason) {
  if (approval_id.empty()) {
    return absl::InvalidArgumentError("deciding needs an approval_id");
  }
  if (approver.empty()) {
    return absl::InvalidArgumentError(
        "deciding needs an approver: who decided goes into the record");
  }
  if (!IsApprovalId(approval_id)) {
    return absl::NotFoundError(absl::StrCat("no approval ", approval_id));
  }
  const std::string& prefix = options_.key_prefix;
  auto run = client_.Run("approval_index",
                         {"GET", layout::ApprovalIndexKey(prefix, approval_id)});
  if (!run.ok()) return run.status();
  if (run->type != redis::Reply::Type::kString || run->str.empty()) {
    return absl::NotFoundError(absl::StrCat("no approval ", approval_id));
  }
  auto reply = client_.Eval(
      redis_scripts::ApprovalDecide(),
      {layout::ApprovalKey(prefix, run->str, approval_id),
       layout::PendingApprovalsKey(prefix, run->str),
       layout::SameApprovalKey(prefix, run->str)},
      {std::string(approval_id), approve ? "APPROVED" : "DENIED",
       std::string(approver), std::string(reason),
       absl::StrCat(absl::ToInt64Milliseconds(options_.keep_after_expiry)),
       layout::EventsChannel(prefix)});
  if (!reply.ok()) return reply.status();
  ReplyReader r(*reply, client_, "approval_decide");
  if (r.Head() == "NOTFOUND") {
    return absl::NotFoundError(absl::StrCat("no approval ", approval_id));
  }
  if (r.Head() == "NOT_PENDING") {
    return absl::FailedPreconditionError(
        absl::StrCat("approval ", approval_id, " is ",
                     absl::AsciiStrToLower(r.String(1)), ", not pending"));
  }
  const redis::Reply* fields = r.Element(1);
  std::optional<Approval> a =
      fields == nullptr || r.Head() != "OK"
          ? std::nullopt
          : ApprovalOf(approval_id, *fields, absl::InfinitePast());
  if (!a.has_value()) return r.Unexpected();
  // No longer pending for the tenant's cap, and held for the global one
  // until it may be dropped: a denied one keep_after_expiry after the
  // decision (its record goes then, as the memory store drops it), an
  // approved one after its expiry. If this fails, the tenant's entry
  // lapses at the approval's expiry and the global one then too (a
  // decided approval drops out of the global count early; the tenant's
  // errs on refusing).
  const absl::Time last =
      approve ? std::max(a->expires_at, a->decided_at) : a->decided_at;
  const int64_t keep_until =
      absl::ToUnixMillis(last + options_.keep_after_expiry);
  client_
      .Pipeline("approval_tenant_done",
                {{"ZREM", layout::TenantApprovalsKey(prefix, ApprovalTenant(*a)),
                  std::string(approval_id)},
                 {"ZADD", layout::AllApprovalsKey(prefix), "XX",
                  absl::StrCat(keep_until), std::string(approval_id)}})
      .IgnoreError();
  return *std::move(a);
}

absl::StatusOr<ApprovalState> RedisApprovalLedger::Await(
    absl::string_view run_id, absl::string_view approval_id,
    absl::Duration timeout, const std::function<bool()>& cancelled) {
  const absl::Time give_up =
      absl::Now() + std::max(timeout, absl::ZeroDuration());
  ApprovalEvents::Waiter waiter(events_, approval_id);
  while (true) {
    const uint64_t seen = waiter.generation();
    const absl::Time asked = absl::Now();
    absl::StatusOr<Loaded> loaded = Load(run_id, approval_id);
    if (!loaded.ok()) return loaded.status();
    if (loaded->approval.state != ApprovalState::kPending) {
      return loaded->approval.state;
    }
    // Read again at a decision (published), at expiry, and every second
    // in case a message was lost; `cancelled` is asked every 100 ms.
    const absl::Time reread =
        std::min({give_up, asked + absl::Seconds(1),
                  asked + std::max(loaded->until_expiry,
                                   absl::Milliseconds(1))});
    while (absl::Now() < reread && !waiter.Changed(seen)) {
      if (cancelled && cancelled()) return ApprovalState::kPending;
      waiter.WaitFor(seen,
                     std::min(reread, absl::Now() + absl::Milliseconds(100)));
    }
    if (absl::Now() >= give_up) return ApprovalState::kPending;
  }
}

}  // namespace state
}  // namespace toolgate
