#include "core/run/run_registry.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/util/ids.h"

namespace toolgate {

Run::Run(std::string id, std::shared_ptr<const Snapshot> snapshot,
         std::string model, std::map<std::string, std::string> context,
         int max_consecutive_rejects, output::OutputHealthWindow health)
    : id_(std::move(id)),
      snapshot_(std::move(snapshot)),
      model_(std::move(model)),
      context_(std::move(context)),
      max_rejects_(max_consecutive_rejects),
      health_(std::move(health)) {}

LoopState Run::Current() const {
  absl::MutexLock lock(&mu_);
  return LoopState{consecutive_rejects_, max_rejects_ - consecutive_rejects_,
                   breaker_open_};
}

LoopState Run::RecordReject() {
  absl::MutexLock lock(&mu_);
  if (consecutive_rejects_ < max_rejects_) ++consecutive_rejects_;
  if (consecutive_rejects_ >= max_rejects_) breaker_open_ = true;
  return LoopState{consecutive_rejects_, max_rejects_ - consecutive_rejects_,
                   breaker_open_};
}

LoopState Run::RecordAllow() {
  absl::MutexLock lock(&mu_);
  consecutive_rejects_ = 0;
  return LoopState{0, max_rejects_, breaker_open_};
}

bool Run::RecordOutput(output::OutputVerdict verdict) {
  absl::MutexLock lock(&mu_);
  return health_.Record(verdict);
}

bool Run::read_only() const {
  absl::MutexLock lock(&mu_);
  return health_.read_only();
}

void Run::Reset() {
  absl::MutexLock lock(&mu_);
  consecutive_rejects_ = 0;
  breaker_open_ = false;
  health_.Reset();
}

namespace {

absl::Status CheckModelAndContext(
    absl::string_view model,
    const std::map<std::string, std::string>& context) {
  if (model.size() > kMaxModelBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "model is ", model.size(), " bytes; at most ", kMaxModelBytes));
  }
  if (context.size() > kMaxContextEntries) {
    return absl::InvalidArgumentError(
        absl::StrCat("context has ", context.size(), " entries; at most ",
                     kMaxContextEntries));
  }
  size_t total = 0;
  for (const auto& [key, value] : context) {
    if (key.size() > kMaxContextKeyBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("a context key is ", key.size(), " bytes; at most ",
                       kMaxContextKeyBytes));
    }
    if (value.size() > kMaxContextValueBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("context[\"", key, "\"] is ", value.size(),
                       " bytes; at most ", kMaxContextValueBytes));
    }
    total += key.size() + value.size();
  }
  if (total > kMaxContextBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("context keys and values total ", total,
                     " bytes; at most ", kMaxContextBytes));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<OpenedRun> RunRegistry::Open(
    std::shared_ptr<const Snapshot> snapshot, absl::string_view model,
    std::map<std::string, std::string> context, RunLimits limits) {
  if (absl::Status s = CheckModelAndContext(model, context); !s.ok()) return s;
  const RunSettings& defaults = snapshot->settings();
  const int max_rejects = limits.max_consecutive_rejects > 0
                              ? limits.max_consecutive_rejects
                              : defaults.max_consecutive_rejects;
  if (limits.kill_switch_threshold < 0 || limits.kill_switch_window < 0) {
    return absl::InvalidArgumentError(
        "kill switch threshold and window must not be negative (0: the "
        "snapshot's)");
  }
  if (max_rejects > 1000 || limits.max_consecutive_rejects < 0) {
    return absl::InvalidArgumentError(
        "max_consecutive_rejects must be from 1 to 1000 (0: the snapshot's)");
  }
  output::HealthWindowOptions health;
  health.threshold = limits.kill_switch_threshold > 0
                         ? limits.kill_switch_threshold
                         : defaults.kill_switch_threshold;
  health.window = limits.kill_switch_window > 0 ? limits.kill_switch_window
                                                : defaults.kill_switch_window;
  auto window = output::OutputHealthWindow::Create(health);
  if (!window.ok()) return window.status();
  absl::StatusOr<std::string> id = RandomHex(16);
  absl::StatusOr<std::string> token = RandomHex(32);
  if (!id.ok()) return id.status();
  if (!token.ok()) return token.status();
  OpenedRun opened;
  opened.run = std::make_shared<Run>(
      absl::StrCat("run_", *id), std::move(snapshot), std::string(model),
      std::move(context), max_rejects, *std::move(window));
  opened.token = *token;
  absl::MutexLock lock(&mu_);
  if (runs_.size() >= options_.max_runs) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "too many open runs (", options_.max_runs, "); close finished runs"));
  }
  runs_.emplace(opened.run->id(), Entry{opened.run, Sha256(opened.token)});
  return opened;
}

absl::StatusOr<std::shared_ptr<Run>> RunRegistry::Authorize(
    absl::string_view run_id, absl::string_view token) const {
  if (token.empty()) {
    return absl::InvalidArgumentError("run_token is required with run_id");
  }
  const std::string presented = Sha256(token);
  absl::MutexLock lock(&mu_);
  auto it = runs_.find(run_id);
  if (it == runs_.end()) {
    return absl::NotFoundError(
        absl::StrCat("no open run \"", run_id, "\" (closed or never opened)"));
  }
  if (!SecretsEqual(presented, it->second.token_hash)) {
    return absl::PermissionDeniedError("run_token does not match the run");
  }
  return it->second.run;
}

absl::Status RunRegistry::Close(absl::string_view run_id,
                                absl::string_view token) {
  if (auto run = Authorize(run_id, token); !run.ok()) return run.status();
  absl::MutexLock lock(&mu_);
  runs_.erase(std::string(run_id));
  return absl::OkStatus();
}

size_t RunRegistry::size() const {
  absl::MutexLock lock(&mu_);
  return runs_.size();
}

}  // namespace toolgate
