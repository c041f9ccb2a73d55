#include "core/run/open_checks.h"

#include "absl/strings/str_cat.h"

namespace toolgate {
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

absl::Status CheckProtectedTexts(const std::vector<std::string>& texts) {
  size_t total = 0;
  for (const std::string& t : texts) total += t.size();
  if (texts.size() > kMaxProtectedTexts || total > kMaxProtectedTextBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("protected_texts: ", texts.size(), " texts of ", total,
                     " bytes; at most ", kMaxProtectedTexts, " texts of ",
                     kMaxProtectedTextBytes, " bytes in all"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CheckedRunSettings> CheckRunOpen(
    const RunSettings& defaults, absl::string_view model,
    const std::map<std::string, std::string>& context, const RunLimits& limits,
    const std::vector<std::string>& protected_texts) {
  if (absl::Status s = CheckModelAndContext(model, context); !s.ok()) return s;
  if (absl::Status s = CheckProtectedTexts(protected_texts); !s.ok()) return s;
  CheckedRunSettings out;
  out.max_rejects = limits.max_consecutive_rejects > 0
                        ? limits.max_consecutive_rejects
                        : defaults.max_consecutive_rejects;
  if (limits.kill_switch_threshold < 0 || limits.kill_switch_window < 0) {
    return absl::InvalidArgumentError(
        "kill switch threshold and window must not be negative (0: the "
        "snapshot's)");
  }
  if (out.max_rejects > 1000 || limits.max_consecutive_rejects < 0) {
    return absl::InvalidArgumentError(
        "max_consecutive_rejects must be from 1 to 1000 (0: the snapshot's)");
  }
  out.kill_switch.threshold = limits.kill_switch_threshold > 0
                                  ? limits.kill_switch_threshold
                                  : defaults.kill_switch_threshold;
  out.kill_switch.window = limits.kill_switch_window > 0
                               ? limits.kill_switch_window
                               : defaults.kill_switch_window;
  if (absl::Status s = output::ValidateHealthWindowOptions(out.kill_switch);
      !s.ok()) {
    return s;
  }
  auto tenant = context.find(kTenantContextKey);
  if (tenant != context.end()) out.tenant = tenant->second;
  return out;
}

absl::Status TooManyRunsError(size_t held, size_t max_runs) {
  return absl::ResourceExhaustedError(absl::StrCat("too many open runs (", held,
                                                   " of --max_runs=", max_runs,
                                                   "); close finished runs"));
}

absl::Status TenantFullError(absl::string_view tenant, size_t held,
                             size_t max_runs_per_tenant) {
  return absl::ResourceExhaustedError(
      absl::StrCat("tenant \"", tenant, "\" has ", held,
                   " open runs (--max_runs_per_tenant=", max_runs_per_tenant,
                   "); close finished runs"));
}

absl::Status MissingTokenError() {
  return absl::InvalidArgumentError("run_token is required with run_id");
}

absl::Status NoOpenRunError(absl::string_view run_id) {
  return absl::NotFoundError(absl::StrCat(
      "no open run \"", run_id, "\" (closed, idle too long, or never opened)"));
}

absl::Status TokenMismatchError() {
  return absl::PermissionDeniedError("run_token does not match the run");
}

}  // namespace toolgate
