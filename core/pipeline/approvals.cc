#include "core/pipeline/approvals.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/gate/decide.h"
#include "core/json/strict_json.h"

namespace toolgate {
namespace pipeline {
namespace {

constexpr char kRunRequired[] =
    "this tool needs a human's approval, and an approval is bound to a run: "
    "open one (OpenRun) and send the call in it";

void Veto(GateResult& gate, int call_index, std::string code,
          std::string message) {
  Violation v;
  v.tool = gate.calls[call_index].tool->spec.name;
  v.code = code;
  v.message = std::move(message);
  v.call_index = call_index;
  gate.vetoes.push_back(std::move(v));
  gate.veto_reason = std::move(code);
}

// Calls whose tool requires approval; the turn is Allowable, so every
// call is resolved.
std::vector<int> CallsNeedingApproval(const GateResult& gate) {
  std::vector<int> out;
  for (size_t i = 0; i < gate.calls.size(); ++i) {
    if (gate.calls[i].tool->spec.policy.requires_approval) {
      out.push_back(static_cast<int>(i));
    }
  }
  return out;
}

}  // namespace

bool IsApprovalCode(absl::string_view code) {
  return absl::StartsWith(code, "approval_");
}

absl::Status ApplyApprovals(CallContext& call) {
  GateResult& gate = call.gate;
  if (!gate.needs_approval || !Allowable(gate)) return call.NotApplicable();
  const std::vector<int> needing = CallsNeedingApproval(gate);
  if (needing.size() > 1) {
    for (size_t k = 1; k < needing.size(); ++k) {
      Veto(gate, needing[k], "parallel_not_allowed",
           "calls that need approval come one per turn: send this one "
           "after the first is decided");
    }
    return absl::OkStatus();
  }
  Run* run = call.target.run.get();
  if (run == nullptr) {
    call.response.message = kRunRequired;
    return absl::OkStatus();
  }
  const CheckedCall& c = gate.calls[needing[0]];
  const std::string arguments = CanonicalJson(c.raw.arguments);
  ApprovalStore& approvals = call.services.approvals;
  if (call.request.approval_id.empty()) {
    absl::StatusOr<Approval> requested = approvals.Request(
        run->id(), c.tool->spec.name, arguments, run->context(), run->model());
    if (!requested.ok()) return requested.status();
    call.response.approval_id = requested->approval_id;
    return absl::OkStatus();
  }
  Consumption used = approvals.Consume(run->id(), call.request.approval_id,
                                       c.tool->spec.name, arguments);
  if (!used.ok()) {
    Veto(gate, needing[0], used.code, used.message);
    return absl::OkStatus();
  }
  gate.needs_approval = false;
  call.approval_used = call.request.approval_id;
  call.response.approval_id = call.request.approval_id;
  return absl::OkStatus();
}

}  // namespace pipeline
}  // namespace toolgate
