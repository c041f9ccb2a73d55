#include "client/cli_approvals.h"

#include <optional>
#include <string>

#include "client/cli_flags.h"

namespace toolgate {
namespace client {
namespace cli_internal {

absl::Status FillListApprovals(CommandContext& ctx,
                               v1::ListApprovalsRequest* request) {
  if (std::optional<std::string> run = ctx.flags.Get("run")) {
    request->set_run_id(*run);
  }
  if (std::optional<std::string> state = ctx.flags.Get("state")) {
    absl::StatusOr<v1::ApprovalState> parsed = ParseChoice<v1::ApprovalState>(
        "state", *state,
        {{"pending", v1::APPROVAL_STATE_PENDING},
         {"approved", v1::APPROVAL_STATE_APPROVED},
         {"denied", v1::APPROVAL_STATE_DENIED},
         {"expired", v1::APPROVAL_STATE_EXPIRED},
         {"used", v1::APPROVAL_STATE_USED}});
    if (!parsed.ok()) return parsed.status();
    request->set_state(*parsed);
  }
  return absl::OkStatus();
}

absl::Status FillDecideApproval(CommandContext& ctx,
                                v1::DecideApprovalRequest* request) {
  if (std::optional<std::string> id = ctx.flags.Get("approval")) {
    request->set_approval_id(*id);
  }
  // Always explicit, even with --request: proto3 cannot tell a forgotten
  // "approve" from false, and a forgotten flag must decide nothing.
  std::optional<std::string> decision = ctx.flags.Get("decision");
  if (!decision.has_value()) {
    return absl::InvalidArgumentError(
        "give --decision approve|deny (there is no default)");
  }
  absl::StatusOr<bool> approve = ParseChoice<bool>(
      "decision", *decision, {{"approve", true}, {"deny", false}});
  if (!approve.ok()) return approve.status();
  request->set_approve(*approve);
  if (std::optional<std::string> approver = ctx.flags.Get("approver")) {
    request->set_approver(*approver);
  }
  if (std::optional<std::string> reason = ctx.flags.Get("reason")) {
    request->set_reason(*reason);
  }
  return absl::OkStatus();
}

}  // namespace cli_internal
}  // namespace client
}  // namespace toolgate
