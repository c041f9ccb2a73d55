#include "core/gate/decide.h"

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace toolgate {
namespace {

size_t TextBytes(const Violation& v) {
  return v.code.size() + v.tool.size() + v.pointer.size() + v.keyword.size() +
         v.expected.size() + v.received.size() + v.message.size() +
         v.schema_pointer.size();
}

// Keeps the first violations within both caps; the rest become a count.
void CapViolations(const GateOptions& options, std::vector<Violation>* all) {
  size_t bytes = 0;
  size_t kept = 0;
  while (kept < all->size() && kept < options.max_violations) {
    bytes += TextBytes((*all)[kept]);
    // The first violation is always kept: a reject says why.
    if (kept > 0 && bytes > options.max_violation_bytes) break;
    ++kept;
  }
  if (kept == all->size()) return;
  const size_t dropped = all->size() - kept;
  all->resize(kept);
  Violation v;
  v.code = "too_many_violations";
  v.message = absl::StrCat(
      dropped, " more violations not listed (at most ", options.max_violations,
      " or ", options.max_violation_bytes, " bytes of them per response)");
  all->push_back(std::move(v));
}

// Stages add violations stage by stage; a response lists them call by
// call (each call's come from one stage, so a stable order is the same
// as checking call by call).
void InCallOrder(std::vector<Violation>* all) {
  const auto by_call = [](const Violation& a, const Violation& b) {
    return a.call_index < b.call_index;
  };
  if (!std::is_sorted(all->begin(), all->end(), by_call)) {
    std::stable_sort(all->begin(), all->end(), by_call);
  }
}

bool AllValid(const GateResult& result) {
  if (result.calls.empty() || !result.violations.empty()) return false;
  for (const CheckedCall& call : result.calls) {
    if (!call.valid) return false;
  }
  return true;
}

}  // namespace

bool Allowable(const GateResult& result) {
  return AllValid(result) && result.vetoes.empty();
}

void Decide(const GateOptions& options, GateResult* result) {
  if (!StillWaiting(options, result)) return;  // REJECT, undecided.
  if (!AllValid(*result)) {
    InCallOrder(&result->violations);
    CapViolations(options, &result->violations);
    result->decision = Decision::kReject;
  } else if (result->needs_approval) {
    result->decision = Decision::kNeedsApproval;
    result->stop_reason = "requires_approval";
  } else {
    result->decision = Decision::kAllow;
  }
  if (result->vetoes.empty()) return;
  std::move(result->vetoes.begin(), result->vetoes.end(),
            std::back_inserter(result->violations));
  result->vetoes.clear();
  result->decision = Decision::kReject;
  result->stop_reason = result->veto_reason;
}

}  // namespace toolgate
