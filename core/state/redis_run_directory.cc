#include "core/state/redis_run_directory.h"

#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/run/open_checks.h"
#include "core/state/redis_layout.h"
#include "core/state/redis_reply.h"
#include "core/state/redis_run_directory_scripts.h"
#include "core/state/redis_run_record.h"
#include "core/state/redis_token.h"
#include "core/util/ids.h"

namespace toolgate {
namespace state {
namespace {

namespace layout = redis_layout;

std::string TokenHash(absl::string_view token) {
  return StoredTokenHash(token);
}

// "run_" and 32 lower-case hex digits: what Open draws.
bool IsRunId(absl::string_view id) {
  if (id.size() != 36 || !absl::StartsWith(id, "run_")) return false;
  for (char c : id.substr(4)) {
    if (!absl::ascii_isdigit(c) && (c < 'a' || c > 'f')) return false;
  }
  return true;
}

bool IsString(const redis::Reply& r) {
  return r.type == redis::Reply::Type::kString ||
         r.type == redis::Reply::Type::kStatus;
}

// A script's verdict: the first element of its array reply.
std::optional<std::string> Verdict(const redis::Reply& r) {
  if (r.type != redis::Reply::Type::kArray || r.elements.empty() ||
      !IsString(r.elements[0])) {
    return std::nullopt;
  }
  return r.elements[0].str;
}

std::string TenantOf(const Run& run) {
  auto it = run.context().find(kTenantContextKey);
  return it == run.context().end() ? "" : it->second;
}

}  // namespace

RedisRunDirectory::RedisRunDirectory(redis::Client& client,
                                     RedisRunDirectoryOptions options,
                                     SnapshotResolver resolve_snapshot)
    : client_(client),
      options_(std::move(options)),
      resolve_snapshot_(std::move(resolve_snapshot)),
      protected_texts_(options_.max_protected_text_bytes) {}

std::string RedisRunDirectory::RunKey(absl::string_view run_id) const {
  return layout::RunKey(options_.key_prefix, run_id);
}

std::string RedisRunDirectory::TenantKey(absl::string_view tenant) const {
  return layout::TenantRunsKey(options_.key_prefix, tenant);
}

int64_t RedisRunDirectory::TtlMs() const {
  // PEXPIRE refuses 0: a TTL under a millisecond is one millisecond.
  return std::max<int64_t>(1, absl::ToInt64Milliseconds(options_.idle_ttl));
}

int64_t RedisRunDirectory::LeaseMs() const { return TtlMs() * 5 / 4; }

absl::StatusOr<OpenedRun> RedisRunDirectory::Open(
    std::shared_ptr<const Snapshot> snapshot, absl::string_view model,
    std::map<std::string, std::string> context, RunLimits limits,
    std::vector<std::string> protected_texts) {
  absl::StatusOr<CheckedRunSettings> checked = CheckRunOpen(
      snapshot->settings(), model, context, limits, protected_texts);
  if (!checked.ok()) return checked.status();
  auto window = output::OutputHealthWindow::Create(checked->kill_switch);
  if (!window.ok()) return window.status();
  absl::StatusOr<std::string> id = RandomHex(16);
  absl::StatusOr<std::string> token = RandomHex(32);
  if (!id.ok()) return id.status();
  if (!token.ok()) return token.status();
  const std::string run_id = absl::StrCat("run_", *id);
  RunRecord record{
      snapshot->id(),       std::string(model),         checked->tenant,
      std::move(context),   std::move(protected_texts), checked->max_rejects,
      checked->kill_switch, limits.text_format};
  absl::StatusOr<std::vector<std::string>> args =
      RunCreateArgs(record, TokenHash(*token), TtlMs());
  if (!args.ok()) return args.status();
  // Shared with every run carrying the same texts; refused past the budget.
  auto leaks = protected_texts_.Intern(record.protected_texts);
  if (!leaks.ok()) return leaks.status();
  // Before the round trip: the lease it takes may be older than the
  // answer, never younger.
  const absl::Time leased = absl::Now();
  if (absl::Status s =
          Admit(run_id, record.tenant, record.snapshot, *std::move(args));
      !s.ok()) {
    return s;
  }
  OpenedRun opened;
  opened.run = std::make_shared<Run>(
      run_id, std::move(snapshot), std::move(record.model),
      std::move(record.context), record.max_rejects, *std::move(window),
      *std::move(leaks), record.text_format);
  Remember(run_id, Cached{opened.run, std::move(record.tenant), leased,
                          TokenHash(*token), TtlMs()});
  opened.token = *std::move(token);
  return opened;
}

absl::Status RedisRunDirectory::Admit(const std::string& run_id,
                                      const std::string& tenant,
                                      const std::string& snapshot_id,
                                      std::vector<std::string> create_args) {
  const std::string runs_key = layout::RunsKey(options_.key_prefix);
  const std::string pins_key = PinsKey(snapshot_id);
  // Both are safe to send twice (Client::EvalPipeline's NOSCRIPT retry): the
  // create writes the same values, and an admit that ran had no error.
  std::vector<redis::ScriptCall> calls = {
      {&RunCreateScript(), {RunKey(run_id)}, std::move(create_args)},
      {&RunAdmitScript(),
       {runs_key, TenantKey(tenant), pins_key,
        layout::SnapshotKey(options_.key_prefix, snapshot_id)},
       {run_id, absl::StrCat(options_.max_runs),
        absl::StrCat(options_.max_runs_per_tenant), absl::StrCat(LeaseMs())}}};
  absl::StatusOr<std::vector<redis::Reply>> replies =
      client_.EvalPipeline("run_open", calls);
  absl::Status status =
      replies.ok() ? AdmitVerdict(tenant, snapshot_id, replies->back())
                   : replies.status();
  if (status.ok()) return status;
  // The id was never handed out: when the store refused it, take the run
  // back now rather than at its expiry. When the store did not answer, a
  // second request would wait as long again; what the lost request may
  // have written expires with the run's TTL and the lease's.
  if (replies.ok()) {
    client_
        .Pipeline("run_discard", {{"DEL", RunKey(run_id)},
                                  {"ZREM", runs_key, run_id},
                                  {"ZREM", TenantKey(tenant), run_id},
                                  {"ZREM", pins_key, run_id}})
        .IgnoreError();
  }
  return status;
}

absl::Status RedisRunDirectory::AdmitVerdict(
    const std::string& tenant, const std::string& snapshot_id,
    const redis::Reply& reply) const {
  std::optional<std::string> verdict = Verdict(reply);
  if (verdict == "OK") return absl::OkStatus();
  if (verdict == "NOT_FOUND") {
    return absl::NotFoundError(
        absl::StrCat("no snapshot \"", snapshot_id, "\" (deleted meanwhile)"));
  }
  if (verdict == "RESOURCE_EXHAUSTED" && reply.elements.size() == 3 &&
      IsString(reply.elements[1]) &&
      reply.elements[2].type == redis::Reply::Type::kInteger) {
    const size_t held = static_cast<size_t>(reply.elements[2].integer);
    if (reply.elements[1].str == "runs") {
      return TooManyRunsError(held, options_.max_runs);
    }
    return TenantFullError(tenant, held, options_.max_runs_per_tenant);
  }
  return UnexpectedReply(client_, "run_admit");
}

absl::StatusOr<std::shared_ptr<Run>> RedisRunDirectory::Authorize(
    absl::string_view run_id, absl::string_view token) const {
  if (token.empty()) return MissingTokenError();
  // Only ids OpenRun draws name keys: no caller text reaches another key.
  if (!IsRunId(run_id)) return NoOpenRunError(run_id);
  const absl::Time now = absl::Now();
  std::optional<Cached> cached = Lookup(run_id);
  // The token check and the touch always go to the store; only the
  // rebuilding of a run this replica already holds is saved.
  std::vector<redis::ScriptCall> calls = {{&RunLoadScript(),
                                    {RunKey(run_id)},
                                    {TokenHash(token), cached ? "0" : "1"}}};
  const bool lease_due = cached && LeaseDue(*cached, now);
  if (lease_due) {
    calls.push_back(
        LeaseCall(run_id, cached->tenant, *cached->run, cached->ttl_ms));
  }
  absl::StatusOr<std::vector<redis::Reply>> replies =
      client_.EvalPipeline("run_load", calls);
  if (!replies.ok()) return replies.status();
  const redis::Reply& load = replies->front();
  if (absl::Status s = LoadVerdict(run_id, load, !cached); !s.ok()) {
    if (absl::IsNotFound(s)) Forget(run_id);
    return s;
  }
  if (cached) {
    if (lease_due) MarkLeased(run_id, now);
    return cached->run;
  }
  int64_t ttl_ms = 0;
  absl::StatusOr<std::shared_ptr<Run>> run =
      Build(run_id, load.elements[1], &ttl_ms);
  if (!run.ok()) return run.status();
  // Not in this replica's cache: its tenant was unknown before the load,
  // so its leases are refreshed in a second round trip (once per run and
  // replica, again only after an eviction). Refreshing here rather than at
  // the next due time keeps a lease alive for a run only this replica uses.
  const std::string tenant = TenantOf(**run);
  replies = client_.EvalPipeline("run_lease",
                                 {LeaseCall(run_id, tenant, **run, ttl_ms)});
  if (!replies.ok()) return replies.status();
  Remember(std::string(run_id),
           Cached{*run, tenant, now, TokenHash(token), ttl_ms});
  return run;
}

absl::StatusOr<std::shared_ptr<Run>> RedisRunDirectory::AuthorizeAtCommit(
    absl::string_view run_id, absl::string_view token) const {
  if (token.empty()) return MissingTokenError();
  const std::string token_hash = TokenHash(token);
  const absl::Time now = absl::Now();
  {
    // Checked in place: the common call copies one shared_ptr out, not
    // the whole entry.
    absl::MutexLock lock(&mu_);
    auto it = cache_.find(run_id);
    if (it != cache_.end() && !LeaseDue(it->second, now) &&
        SecretsEqual(it->second.token_hash, token_hash)) {
      return it->second.run;
    }
  }
  return Authorize(run_id, token);
}

bool RedisRunDirectory::LeaseDue(const Cached& cached, absl::Time now) {
  return now - cached.leased > absl::Milliseconds(cached.ttl_ms) / 4;
}

redis::ScriptCall RedisRunDirectory::LeaseCall(absl::string_view run_id,
                                               const std::string& tenant,
                                               const Run& run,
                                               int64_t ttl_ms) const {
  return {&RunLeaseScript(),
          {layout::RunsKey(options_.key_prefix), TenantKey(tenant),
           PinsKey(run.snapshot().id())},
          {std::string(run_id), absl::StrCat(ttl_ms * 5 / 4)}};
}

std::string RedisRunDirectory::PinsKey(absl::string_view snapshot_id) const {
  return layout::SnapshotPinsKey(options_.key_prefix, snapshot_id);
}

absl::Status RedisRunDirectory::LoadVerdict(absl::string_view run_id,
                                            const redis::Reply& reply,
                                            bool with_fields) const {
  std::optional<std::string> verdict = Verdict(reply);
  if (verdict == "NOT_FOUND") return NoOpenRunError(run_id);
  if (verdict == "PERMISSION_DENIED") return TokenMismatchError();
  if (verdict != "OK") return UnexpectedReply(client_, "run_load");
  if (!with_fields) return absl::OkStatus();
  if (reply.elements.size() != 2 ||
      reply.elements[1].type != redis::Reply::Type::kArray ||
      reply.elements[1].elements.size() % 2 != 0) {
    return UnexpectedReply(client_, "run_load: fields");
  }
  return absl::OkStatus();
}

absl::Status RedisRunDirectory::Close(absl::string_view run_id,
                                      absl::string_view token) {
  absl::StatusOr<std::shared_ptr<Run>> run = Authorize(run_id, token);
  if (!run.ok()) return run.status();
  Forget(run_id);
  const std::string id(run_id);
  absl::StatusOr<std::vector<redis::Reply>> done = client_.Pipeline(
      "run_close", {{"DEL", RunKey(id)},
                    {"DEL", layout::RunWaitsKey(options_.key_prefix, id)},
                    {"ZREM", layout::RunsKey(options_.key_prefix), id},
                    {"ZREM", TenantKey(TenantOf(**run)), id},
                    {"ZREM", PinsKey((*run)->snapshot().id()), id}});
  return done.status();
}

absl::StatusOr<std::shared_ptr<Run>> RedisRunDirectory::Build(
    absl::string_view run_id, const redis::Reply& fields,
    int64_t* ttl_ms) const {
  std::optional<RunRecord> record = ParseRunRecord(fields);
  if (!record) {
    return UnexpectedReply(client_, absl::StrCat("run ", run_id, ": fields"));
  }
  *ttl_ms = record->idle_ttl_ms > 0 ? record->idle_ttl_ms : TtlMs();
  auto window = output::OutputHealthWindow::Create(record->kill_switch);
  if (!window.ok()) {
    return UnexpectedReply(client_, absl::StrCat("run ", run_id, ": ks"));
  }
  absl::StatusOr<std::shared_ptr<const Snapshot>> snapshot =
      resolve_snapshot_(record->snapshot);
  if (!snapshot.ok()) return snapshot.status();
  auto leaks = protected_texts_.Intern(record->protected_texts);
  if (!leaks.ok()) return leaks.status();
  return std::make_shared<Run>(
      std::string(run_id), *std::move(snapshot), std::move(record->model),
      std::move(record->context), record->max_rejects, *std::move(window),
      *std::move(leaks), record->text_format);
}

std::optional<RedisRunDirectory::Cached> RedisRunDirectory::Lookup(
    absl::string_view run_id) const {
  absl::MutexLock lock(&mu_);
  auto it = cache_.find(run_id);
  if (it == cache_.end()) return std::nullopt;
  return it->second;
}

void RedisRunDirectory::Remember(std::string run_id, Cached cached) const {
  absl::MutexLock lock(&mu_);
  // Arbitrary eviction is enough: an evicted run costs one rebuild.
  if (cache_.size() >= options_.max_cached_runs && !cache_.contains(run_id)) {
    cache_.erase(cache_.begin());
  }
  cache_.insert_or_assign(std::move(run_id), std::move(cached));
}

void RedisRunDirectory::MarkLeased(absl::string_view run_id,
                                   absl::Time when) const {
  absl::MutexLock lock(&mu_);
  auto it = cache_.find(run_id);
  if (it != cache_.end()) it->second.leased = when;
}

void RedisRunDirectory::Forget(absl::string_view run_id) const {
  absl::MutexLock lock(&mu_);
  cache_.erase(run_id);
}

}  // namespace state
}  // namespace toolgate
