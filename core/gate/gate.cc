#include "core/gate/gate.h"

#include <utility>

#include "core/gate/approval.h"
#include "core/gate/argument_policy.h"
#include "core/gate/check_arguments.h"
#include "core/gate/coerce.h"
#include "core/gate/decide.h"
#include "core/gate/resolve_tools.h"

namespace toolgate {

GateResult CheckToolCalls(const Snapshot& snapshot, RawCalls calls,
                          const GateOptions& options) {
  GateResult result;
  ResolveTools(snapshot, std::move(calls), options, &result);
  if (!result.interrupted.ok()) return result;
  CoerceArguments(&result);
  CheckArguments(options, &result);
  if (!result.interrupted.ok()) return result;
  // No run: bound arguments cannot be checked, so they are refused.
  CheckArgumentPolicy(RunFacts(), &result);
  RequireApproval(&result);
  Decide(options, &result);
  return result;
}

}  // namespace toolgate
