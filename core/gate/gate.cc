#include "core/gate/gate.h"

#include <utility>

#include "core/gate/approval.h"
#include "core/gate/check_arguments.h"
#include "core/gate/decide.h"
#include "core/gate/resolve_tools.h"

namespace toolgate {

GateResult CheckToolCalls(const Snapshot& snapshot, RawCalls calls,
                          const GateOptions& options) {
  GateResult result;
  ResolveTools(snapshot, std::move(calls), options, &result);
  if (!result.interrupted.ok()) return result;
  CheckArguments(options, &result);
  if (!result.interrupted.ok()) return result;
  RequireApproval(&result);
  Decide(options, &result);
  return result;
}

}  // namespace toolgate
