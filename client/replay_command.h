// toolgatectl replay: decide the calls of an audit log again, against a
// snapshot on a server or a manifest decided in process, and print what
// changed (core/replay/replay.h):
//
//   toolgatectl replay --audit FILE (--snapshot ID [--server ADDR] |
//                                    --manifest FILE)
//
// Exit status: 0 nothing changed, 1 something changed, 2 error.
#ifndef TOOLGATE_CLIENT_REPLAY_COMMAND_H_
#define TOOLGATE_CLIENT_REPLAY_COMMAND_H_

#include "client/cli_commands.h"

namespace toolgate {
namespace client {
namespace cli_internal {

int RunReplay(CommandContext& ctx);

}  // namespace cli_internal
}  // namespace client
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_REPLAY_COMMAND_H_
