// The Lua scripts of the Redis run state store (redis_run_state.h): each
// is one atomic step on one run's keys (hash tag {RUN_ID}), or on the
// cross-run counts (tag {c}); never both. Every writer checks everything
// before its first write but the run's touch (its idle TTL renewed), since
// Redis does not roll back a script that fails halfway. Times are the
// server's (TIME), in ms.
#ifndef TOOLGATE_CORE_STATE_REDIS_RUN_SCRIPTS_H_
#define TOOLGATE_CORE_STATE_REDIS_RUN_SCRIPTS_H_

#include "core/redis/client.h"

namespace toolgate {
namespace state {
namespace redis_scripts {

// The run's part of one ValidateToolCall (run_commit.h).
const redis::Script& CallCommit();
// Gives back a commit's approval use and budget spend.
const redis::Script& CallRefund();
// One tool output's verdict into the run's kill-switch window.
const redis::Script& OutputRecord();
// Closes the breaker and clears the kill switch.
const redis::Script& RunReset();
// Admits a new approval against the tenant's and the global caps ({c}).
const redis::Script& ApprovalAdmit();
// Takes an admission back (the approval was not created after all).
const redis::Script& ApprovalUnadmit();
// Counts one more AwaitApproval of the run, unless `max` already wait.
const redis::Script& WaitBegin();
// Decides a PENDING, unexpired approval ({R}).
const redis::Script& ApprovalDecide();

}  // namespace redis_scripts
}  // namespace state
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STATE_REDIS_RUN_SCRIPTS_H_
