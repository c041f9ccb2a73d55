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

void VetoParallel(GateResult& gate, const std::vector<int>& needing) {
  for (size_t k = 1; k < needing.size(); ++k) {
    Veto(gate, needing[k], "parallel_not_allowed",
         "calls that need approval come one per turn: send this one "
         "after the first is decided");
  }
}

}  // namespace

bool IsApprovalCode(absl::string_view code) {
  return absl::StartsWith(code, "approval_");
}

absl::Status ApplyApprovals(CallContext& call) {
  GateResult& gate = call.gate;
  if (!gate.needs_approval || !Allowable(gate)) return call.NotApplicable();
  const std::vector<int> needing = CallsNeedingApproval(gate);
  state::CallPlan& plan = call.plan;
  if (call.target.run == nullptr) {
    if (needing.size() > 1) {
      VetoParallel(gate, needing);
    } else {
      call.response.message = kRunRequired;
    }
    return absl::OkStatus();
  }
  if (needing.size() > 1) {
    plan.approval = state::CallPlan::Approval::kParallel;
    return absl::OkStatus();
  }
  const CheckedCall& c = gate.calls[needing[0]];
  plan.tool = c.tool->spec.name;
  plan.arguments_json = CanonicalJson(c.raw.arguments);
  if (call.request.approval_id.empty()) {
    plan.approval = state::CallPlan::Approval::kRequest;
  } else {
    plan.approval = state::CallPlan::Approval::kConsume;
    plan.approval_id = call.request.approval_id;
  }
  return absl::OkStatus();
}

void ApplyApprovalOutcome(CallContext& call) {
  GateResult& gate = call.gate;
  const state::CallOutcome& outcome = call.outcome;
  switch (call.plan.approval) {
    case state::CallPlan::Approval::kNone:
      return;
    case state::CallPlan::Approval::kParallel:
      VetoParallel(gate, CallsNeedingApproval(gate));
      return;
    case state::CallPlan::Approval::kRequest:
      call.response.approval_id = outcome.approval_id;
      return;
    case state::CallPlan::Approval::kConsume:
      break;
  }
  if (!outcome.refused_approval.ok()) {
    Veto(gate, CallsNeedingApproval(gate)[0], outcome.refused_approval.code,
         outcome.refused_approval.message);
    return;
  }
  // The hold lifts only for an approval the commit used, or gave back
  // because the budget did not fit (whose veto then refuses the turn, and
  // no approval id is answered). Anything else keeps it: the turn stays
  // NEEDS_APPROVAL, never an ALLOW nothing was spent for.
  if (outcome.approval_consumed) {
    gate.needs_approval = false;
    call.response.approval_id = outcome.approval_id;
  } else if (outcome.budget_refused >= 0) {
    gate.needs_approval = false;
  }
}

}  // namespace pipeline
}  // namespace toolgate
