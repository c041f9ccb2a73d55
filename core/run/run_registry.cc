#include "core/run/run_registry.h"

#include <time.h>

#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/run/open_checks.h"
#include "core/util/ids.h"

namespace toolgate {

LoopState RunState::Loop(int max_rejects) const {
  return LoopState{consecutive_rejects, max_rejects - consecutive_rejects,
                   breaker_open};
}

LoopState RunState::RecordReject(int max_rejects) {
  if (consecutive_rejects < max_rejects) ++consecutive_rejects;
  if (consecutive_rejects >= max_rejects) breaker_open = true;
  return Loop(max_rejects);
}

LoopState RunState::RecordAllow(int max_rejects) {
  consecutive_rejects = 0;
  return Loop(max_rejects);
}

void RunState::Reset() {
  consecutive_rejects = 0;
  breaker_open = false;
  health.Reset();
}

Run::Run(std::string id, std::shared_ptr<const Snapshot> snapshot,
         std::string model, std::map<std::string, std::string> context,
         int max_consecutive_rejects, output::OutputHealthWindow health,
         std::shared_ptr<const policy::LeakDetector> leaks,
         extract::TextFormat text_format)
    : id_(std::move(id)),
      snapshot_(std::move(snapshot)),
      model_(std::move(model)),
      context_(std::move(context)),
      max_rejects_(max_consecutive_rejects),
      leaks_(std::move(leaks)),
      text_format_(text_format),
      state_(std::move(health)) {}

LoopState Run::Current() const {
  absl::MutexLock lock(&mu_);
  return state_.Loop(max_rejects_);
}

LoopState Run::RecordReject() {
  return WithState([&](RunState& s) { return s.RecordReject(max_rejects_); });
}

LoopState Run::RecordAllow() {
  return WithState([&](RunState& s) { return s.RecordAllow(max_rejects_); });
}

bool Run::RecordOutput(output::OutputVerdict verdict) {
  return WithState([&](RunState& s) { return s.health.Record(verdict); });
}

bool Run::read_only() const {
  absl::MutexLock lock(&mu_);
  return state_.health.read_only();
}

int Run::calls_used(const std::string& tool) const {
  absl::MutexLock lock(&mu_);
  return state_.budget.used(tool);
}

void Run::Reset() {
  WithState([](RunState& s) { s.Reset(); });
}

bool Run::BeginWait(int max) {
  absl::MutexLock lock(&mu_);
  if (waits_ >= max) return false;
  ++waits_;
  return true;
}

void Run::EndWait() {
  absl::MutexLock lock(&mu_);
  --waits_;
}

int Run::waits() const {
  absl::MutexLock lock(&mu_);
  return waits_;
}

RunRegistry::RunRegistry(RunRegistryOptions options, SnapshotStore* pins)
    : options_(std::move(options)),
      pins_(pins),
      protected_texts_(options_.max_protected_text_bytes) {}

absl::Time RunRegistry::Now() const {
  if (options_.now) return options_.now();
  // Idle limits are seconds to hours: the coarse clock (a few ms of
  // resolution) is plenty and costs a fraction of a precise read on the
  // per-call path.
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return absl::TimeFromTimespec(ts);
}

absl::StatusOr<OpenedRun> RunRegistry::Open(
    std::shared_ptr<const Snapshot> snapshot, absl::string_view model,
    std::map<std::string, std::string> context, RunLimits limits,
    std::vector<std::string> protected_texts) {
  absl::StatusOr<CheckedRunSettings> checked = CheckRunOpen(
      snapshot->settings(), model, context, limits, protected_texts);
  if (!checked.ok()) return checked.status();
  const int max_rejects = checked->max_rejects;
  auto window = output::OutputHealthWindow::Create(checked->kill_switch);
  if (!window.ok()) return window.status();
  absl::StatusOr<std::string> id = RandomHex(16);
  absl::StatusOr<std::string> token = RandomHex(32);
  if (!id.ok()) return id.status();
  if (!token.ok()) return token.status();
  // Shared with every run carrying the same texts; refused past the budget.
  auto leaks = protected_texts_.Intern(protected_texts);
  if (!leaks.ok()) return leaks.status();
  std::string tenant = std::move(checked->tenant);
  OpenedRun opened;
  opened.run = std::make_shared<Run>(
      absl::StrCat("run_", *id), std::move(snapshot), std::string(model),
      std::move(context), max_rejects, *std::move(window), *std::move(leaks),
      limits.text_format);
  opened.token = *token;
  const absl::Time now = Now();
  absl::MutexLock lock(&mu_);
  if (now - last_sweep_ >= std::min(absl::Seconds(1), options_.idle_ttl)) {
    SweepLocked(now);
  }
  // Runs that expired since the last sweep hold no slot: a refusal is
  // only given once they are gone.
  if (!CheckCaps(tenant).ok()) SweepLocked(now);
  if (absl::Status s = CheckCaps(tenant); !s.ok()) return s;
  if (pins_ != nullptr) {
    if (absl::Status s = pins_->Pin(opened.run->snapshot().id()); !s.ok()) {
      return s;
    }
  }
  ++per_tenant_[tenant];
  runs_.emplace(opened.run->id(), Entry{opened.run, Sha256(opened.token),
                                        std::move(tenant), now});
  return opened;
}

absl::Status RunRegistry::CheckCaps(const std::string& tenant) const {
  if (runs_.size() >= options_.max_runs) {
    return TooManyRunsError(runs_.size(), options_.max_runs);
  }
  auto it = per_tenant_.find(tenant);
  const size_t held = it == per_tenant_.end() ? 0 : it->second;
  if (held >= options_.max_runs_per_tenant) {
    return TenantFullError(tenant, held, options_.max_runs_per_tenant);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<Run>> RunRegistry::Authorize(
    absl::string_view run_id, absl::string_view token) const {
  if (token.empty()) {
    return MissingTokenError();
  }
  const std::string presented = Sha256(token);
  const absl::Time now = Now();
  absl::MutexLock lock(&mu_);
  auto it = runs_.find(run_id);
  // An expired run waiting for the sweep is as gone as a closed one.
  if (it == runs_.end() || now - it->second.last_used >= options_.idle_ttl) {
    return NoOpenRunError(run_id);
  }
  if (!SecretsEqual(presented, it->second.token_hash)) {
    return TokenMismatchError();
  }
  it->second.last_used = now;
  return it->second.run;
}

absl::Status RunRegistry::Close(absl::string_view run_id,
                                absl::string_view token) {
  if (auto run = Authorize(run_id, token); !run.ok()) return run.status();
  absl::MutexLock lock(&mu_);
  auto it = runs_.find(run_id);
  if (it != runs_.end()) Remove(it);  // Unless closed meanwhile.
  return absl::OkStatus();
}

void RunRegistry::Remove(EntryMap::iterator it) {
  if (pins_ != nullptr) pins_->Unpin(it->second.run->snapshot().id());
  auto tenant = per_tenant_.find(it->second.tenant);
  if (--tenant->second == 0) per_tenant_.erase(tenant);
  runs_.erase(it);
}

size_t RunRegistry::SweepLocked(absl::Time now) {
  last_sweep_ = now;
  size_t closed = 0;
  for (auto it = runs_.begin(); it != runs_.end();) {
    auto next = std::next(it);
    if (now - it->second.last_used >= options_.idle_ttl) {
      Remove(it);
      ++closed;
    }
    it = next;
  }
  return closed;
}

size_t RunRegistry::Sweep() {
  const absl::Time now = Now();
  absl::MutexLock lock(&mu_);
  return SweepLocked(now);
}

size_t RunRegistry::SweepIfDue() {
  const absl::Time now = Now();
  absl::MutexLock lock(&mu_);
  if (now - last_sweep_ < std::min(absl::Seconds(1), options_.idle_ttl)) {
    return 0;
  }
  return SweepLocked(now);
}

bool RunRegistry::IsOpen(absl::string_view run_id) const {
  const absl::Time now = Now();
  absl::MutexLock lock(&mu_);
  auto it = runs_.find(run_id);
  return it != runs_.end() && now - it->second.last_used < options_.idle_ttl;
}

size_t RunRegistry::size() const {
  absl::MutexLock lock(&mu_);
  return runs_.size();
}

}  // namespace toolgate
