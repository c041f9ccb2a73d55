// What RunDirectory::Open checks before a run exists, shared by every
// directory (RunRegistry in the process, the Redis store in core/state) so
// that a caller meets the same refusals, word for word, whichever keeps
// its runs.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_RUN_OPEN_CHECKS_H_
#define TOOLGATE_CORE_RUN_OPEN_CHECKS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/manifest/manifest.h"
#include "core/output/health_window.h"
#include "core/run/run_registry.h"

namespace toolgate {

// A run's settings once the snapshot's defaults fill in what the caller
// left at 0.
struct CheckedRunSettings {
  int max_rejects = 0;
  output::HealthWindowOptions kill_switch;
  std::string tenant;  // context["tenant"], "" when absent.
};

// INVALID_ARGUMENT for a model, context or protected texts over the caps
// of run_registry.h, and for limits out of range (breaker 1..1000; kill
// switch 1 <= threshold <= window <= 1000), in that order.
absl::StatusOr<CheckedRunSettings> CheckRunOpen(
    const RunSettings& defaults, absl::string_view model,
    const std::map<std::string, std::string>& context, const RunLimits& limits,
    const std::vector<std::string>& protected_texts);

// The refusals every directory gives in the same words: past --max_runs or
// the tenant's cap (RESOURCE_EXHAUSTED, `held` runs open now), an empty
// token (INVALID_ARGUMENT), no such run (NOT_FOUND), a token that does not
// match (PERMISSION_DENIED).
absl::Status TooManyRunsError(size_t held, size_t max_runs);
absl::Status TenantFullError(absl::string_view tenant, size_t held,
                             size_t max_runs_per_tenant);
absl::Status MissingTokenError();
absl::Status NoOpenRunError(absl::string_view run_id);
absl::Status TokenMismatchError();

}  // namespace toolgate

#endif  // TOOLGATE_CORE_RUN_OPEN_CHECKS_H_
