// Internal to toolgatectl: the command table.
//
// Adding a subcommand for a new RPC is one entry in Commands() (plus, if it
// has convenience flags, a small Fill function).
#ifndef TOOLGATE_CLIENT_CLI_COMMANDS_H_
#define TOOLGATE_CLIENT_CLI_COMMANDS_H_

#include <functional>
#include <istream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "client/cli_flags.h"
#include "client/toolgate_client.h"
#include "grpcpp/grpcpp.h"

namespace toolgate {
namespace client {
namespace cli_internal {

struct CommandContext {
  const std::string& command;
  const std::string& usage;  // One line, for usage errors.
  const Flags& flags;
  InputReader& inputs;
  std::shared_ptr<grpc::ChannelInterface> channel;
  const ToolGateClient& client;
  absl::Duration timeout;
  std::istream& in;
  std::ostream& out;
  std::ostream& err;
  // Commands that run another program (Command::takes_command): the words
  // after "--".
  std::vector<std::string> command_line;
  // --addr (or $TOOLGATE_ADDR) was given, and the global flags as given
  // (for commands that print a toolgatectl command line).
  bool address_given = false;
  std::string address;
  std::vector<std::string> global_args;
};

// A command that needs no server: it gets every word after its name,
// unparsed, and owns its own flags and usage.
using LocalRun = std::function<int(const std::vector<std::string>& args,
                                   std::istream& in, std::ostream& out,
                                   std::ostream& err)>;

struct Command {
  std::string name;  // May be two words, e.g. "schema check".
  std::vector<FlagSpec> flags;
  std::function<int(CommandContext&)> run;
  // Set instead of `run` (and `flags`) for local commands.
  LocalRun local_run = nullptr;
  std::string local_usage;  // e.g. "--schema FILE [...]" for help.
  // Its flags end at "--"; the words after it are the program it runs
  // (CommandContext::command_line).
  bool takes_command = false;
};

const std::vector<Command>& Commands();

// Prints "toolgatectl: <command>: <message>" and the usage line; returns
// kExitError.
int UsageError(CommandContext& ctx, const absl::Status& status);

}  // namespace cli_internal
}  // namespace client
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_CLI_COMMANDS_H_
