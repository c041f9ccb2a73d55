#include "core/pipeline/gate_stages.h"

#include <string>
#include <utility>

#include "core/gate/approval.h"
#include "core/gate/argument_policy.h"
#include "core/gate/check_arguments.h"
#include "core/gate/coerce.h"
#include "core/gate/decide.h"
#include "core/gate/resolve_tools.h"
#include "core/util/truncate.h"

namespace toolgate {
namespace pipeline {
namespace {

// What the caller learns about one call: for an ALLOW, exactly the value
// that was validated, in canonical form. The call's texts move into the
// report (the decision is made; nothing reads them from the gate again).
CallReport ToReport(CheckedCall& c) {
  CallReport report;
  report.id = std::move(c.raw.id);
  // A name that resolved to no tool is echoed cut to the longest a tool
  // name can be (a model may send a huge one).
  report.name = c.tool != nullptr ? std::move(c.raw.name)
                                  : TruncateText(c.raw.name, kMaxToolNameBytes);
  if (c.raw.error.ok()) report.arguments_json = CanonicalJson(c.raw.arguments);
  report.repairs = std::move(c.raw.repairs);
  report.coercions = std::move(c.raw.coercions);
  report.sanitizations = std::move(c.raw.sanitizations);
  report.source = std::move(c.raw.source);
  report.candidates_seen = c.raw.candidates_seen;
  return report;
}

}  // namespace

absl::Status ResolveTools(CallContext& call) {
  toolgate::ResolveTools(*call.target.snapshot, std::move(call.calls),
                         call.gate_options, &call.gate);
  return call.gate.interrupted;
}

absl::Status CoerceArguments(CallContext& call) {
  bool any_rules = false;  // Argument rules name the coercions and strips.
  for (const CheckedCall& c : call.gate.calls) {
    any_rules |= c.tool != nullptr && c.tool->spec.policy.arguments != nullptr;
  }
  if (!any_rules) return call.NotApplicable();
  toolgate::CoerceArguments(&call.gate, call.request.forward_as_sent);
  return absl::OkStatus();
}

absl::Status CheckArgumentPolicy(CallContext& call) {
  RunFacts facts;
  if (call.target.run != nullptr) {
    facts.context = &call.target.run->context();
    facts.leaks = call.target.run->leaks();
  }
  toolgate::CheckArgumentPolicy(facts, &call.gate);
  return absl::OkStatus();
}

absl::Status CheckArguments(CallContext& call) {
  toolgate::CheckArguments(call.gate_options, &call.gate);
  return call.gate.interrupted;
}

absl::Status RequireApproval(CallContext& call) {
  toolgate::RequireApproval(&call.gate);
  return call.gate.needs_approval ? absl::OkStatus() : call.NotApplicable();
}

absl::Status Decide(CallContext& call) {
  GateResult& gate = call.gate;
  if (call.committed) {
    // The run's state has changed: the commit was the last point a caller
    // that went away could still be told nothing happened.
    GateOptions options = call.gate_options;
    options.cancel = nullptr;
    toolgate::Decide(options, &gate);
  } else {
    toolgate::Decide(call.gate_options, &gate);
  }
  if (!gate.interrupted.ok()) return gate.interrupted;
  // The store recorded the loop for the decision it reached; an answer that
  // differs would count the run wrong (a broken store): no answer at all.
  if (call.committed && !call.outcome.stop &&
      gate.decision != call.outcome.decision) {
    return absl::InternalError(
        "the run state store decided otherwise than the pipeline; the call "
        "is refused");
  }
  ValidateCallResponse& response = call.response;
  response.decision = gate.decision;
  response.stop_reason = std::move(gate.stop_reason);
  response.violations = std::move(gate.violations);
  response.calls.reserve(gate.calls.size());
  for (CheckedCall& c : gate.calls) response.calls.push_back(ToReport(c));
  return absl::OkStatus();
}

}  // namespace pipeline
}  // namespace toolgate
