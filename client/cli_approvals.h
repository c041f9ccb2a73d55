// toolgatectl's approval commands: `approvals list`, `approvals decide`.
#ifndef TOOLGATE_CLIENT_CLI_APPROVALS_H_
#define TOOLGATE_CLIENT_CLI_APPROVALS_H_

#include "absl/status/status.h"
#include "client/cli_commands.h"
#include "toolgate/v1/toolgate.pb.h"

namespace toolgate {
namespace client {
namespace cli_internal {

// --run ID, --state pending|approved|denied|expired|used.
absl::Status FillListApprovals(CommandContext& ctx,
                               v1::ListApprovalsRequest* request);
// --approval ID, --decision approve|deny (always required, even with
// --request: no default decision),
// --approver NAME, --reason TEXT.
absl::Status FillDecideApproval(CommandContext& ctx,
                                v1::DecideApprovalRequest* request);

}  // namespace cli_internal
}  // namespace client
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_CLI_APPROVALS_H_
