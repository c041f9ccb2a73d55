#include "client/cli.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "client/cli_commands.h"
#include "client/cli_flags.h"
#include "client/toolgate_client.h"
#include "core/util/secret_file.h"
#include "core/util/tls_files.h"

namespace toolgate {
namespace client {
namespace {

using cli_internal::Command;
using cli_internal::CommandContext;
using cli_internal::Commands;
using cli_internal::FlagSpec;
using cli_internal::Flags;
using cli_internal::InputReader;

constexpr char kGlobalUsage[] =
    "toolgatectl [--addr HOST:PORT|unix:PATH] [--timeout SECONDS]\n"
    "            [--admin_token_file PATH] [--tls_ca_file PEM]\n"
    "            [--tls_cert_file PEM --tls_key_file PEM]";
// An hour is already far past any sane gate latency; larger values are
// almost certainly typos (milliseconds given as seconds).
constexpr double kMaxTimeoutSeconds = 3600;

const std::vector<FlagSpec>& GlobalFlags() {
  static const auto* const flags = new std::vector<FlagSpec>{
      {"addr", "HOST:PORT|unix:PATH"},
      {"timeout", "SECONDS"},
      {"admin_token_file", "PATH"},
      {"tls_ca_file", "PEM"},
      {"tls_cert_file", "PEM"},
      {"tls_key_file", "PEM"}};
  return *flags;
}

std::string UsageLine(const Command& command) {
  std::string line = absl::StrCat("usage: ", kGlobalUsage, " ", command.name);
  for (const FlagSpec& flag : command.flags) {
    absl::StrAppend(&line, " [--", flag.name,
                    flag.boolean ? "" : absl::StrCat(" ", flag.value_hint), "]",
                    flag.repeatable ? "..." : "");
  }
  if (command.local_run) absl::StrAppend(&line, " ", command.local_usage);
  if (command.takes_command) absl::StrAppend(&line, " -- COMMAND [ARGS...]");
  return line;
}

void PrintHelp(std::ostream& out) {
  out << "usage: " << kGlobalUsage << " COMMAND [FLAGS]\n\n"
      << "--addr defaults to $" << kAddressEnvVar << ", else "
      << kDefaultAddress << "; --timeout defaults to 5.\n"
      << "TLS: --tls_ca_file verifies the server (any --tls_* flag turns "
         "TLS on; without --tls_ca_file the system roots are used); "
         "--tls_cert_file/--tls_key_file present a client certificate "
         "(mTLS).\n"
      << "Exit status: 0 success (validate: DECISION_ALLOW only; "
         "extract-verdict: OUTCOME_PASS only; validate-output: "
         "OUTPUT_VERDICT_VALID only; health: SERVING only), 1 answered but "
         "not positive, 2 usage or RPC error.\n\n";
  for (const Command& command : Commands()) {
    out << UsageLine(command) << "\n";
  }
}

// Index of the command named at args[i] (two-word names first), and how
// many words it used.
std::optional<std::pair<size_t, size_t>> FindCommand(
    const std::vector<std::string>& args, size_t i) {
  const std::vector<Command>& commands = Commands();
  for (size_t c = 0; c < commands.size(); ++c) {
    const std::string& name = commands[c].name;
    if (i + 1 < args.size() && name == args[i] + " " + args[i + 1]) {
      return std::make_pair(c, size_t{2});
    }
    if (name == args[i]) return std::make_pair(c, size_t{1});
  }
  return std::nullopt;
}

absl::StatusOr<absl::Duration> ParseTimeout(const std::string& text) {
  double seconds = 0;
  if (!absl::SimpleAtod(text, &seconds) || !std::isfinite(seconds) ||
      seconds <= 0 || seconds > kMaxTimeoutSeconds) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--timeout must be seconds in (0, ", kMaxTimeoutSeconds, "], got \"",
        text, "\""));
  }
  return absl::Seconds(seconds);
}

std::string ResolveAddress(const std::optional<std::string>& flag) {
  if (flag.has_value()) return *flag;
  const char* env = std::getenv(kAddressEnvVar);
  if (env != nullptr && env[0] != '\0') return env;
  return kDefaultAddress;
}

// Global flags may come before the command or among its flags; the later
// one wins.
struct GlobalOptions {
  std::optional<std::string> addr;
  std::optional<std::string> timeout;
  std::optional<std::string> admin_token_file;
  std::optional<std::string> tls_ca_file;
  std::optional<std::string> tls_cert_file;
  std::optional<std::string> tls_key_file;
};

void MergeGlobals(const Flags& flags, GlobalOptions* globals) {
  for (auto [name, slot] :
       std::initializer_list<
           std::pair<const char*, std::optional<std::string>*>>{
           {"addr", &globals->addr},
           {"timeout", &globals->timeout},
           {"admin_token_file", &globals->admin_token_file},
           {"tls_ca_file", &globals->tls_ca_file},
           {"tls_cert_file", &globals->tls_cert_file},
           {"tls_key_file", &globals->tls_key_file}}) {
    if (auto value = flags.Get(name)) *slot = value;
  }
}

// Plaintext without --tls_* flags; otherwise TLS with checked files. A
// half-given client certificate is an error, never a silent drop to
// server-only TLS.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(
    const GlobalOptions& g) {
  if (!g.tls_ca_file && !g.tls_cert_file && !g.tls_key_file) {
    return grpc::InsecureChannelCredentials();
  }
  if (g.tls_cert_file.has_value() != g.tls_key_file.has_value()) {
    return absl::InvalidArgumentError(
        g.tls_cert_file ? "--tls_cert_file needs --tls_key_file"
                        : "--tls_key_file needs --tls_cert_file");
  }
  grpc::SslCredentialsOptions ssl;
  if (g.tls_ca_file) {
    auto ca = ReadPemCertificates(*g.tls_ca_file, "tls_ca_file");
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = *std::move(ca);
  }
  if (g.tls_cert_file) {
    auto pair = ReadPemKeyPair(*g.tls_cert_file, "tls_cert_file",
                               *g.tls_key_file, "tls_key_file");
    if (!pair.ok()) return pair.status();
    ssl.pem_cert_chain = std::move(pair->cert_pem);
    ssl.pem_private_key = std::move(pair->key_pem);
  }
  return grpc::SslCredentials(ssl);
}


int GeneralUsageError(std::ostream& err, absl::string_view message) {
  err << "toolgatectl: " << message << "\nusage: " << kGlobalUsage
      << " COMMAND [FLAGS] (try: toolgatectl help)\n";
  return kExitError;
}

// A parsed command line, before anything is dialed.
struct Invocation {
  const Command* command = nullptr;
  std::string usage;
  Flags flags;
  absl::Duration timeout;
  std::string address;
  std::string admin_token;
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  bool address_given = false;
  std::vector<std::string> global_args;  // As given, "--name=value" each.
};

// Whether an address was chosen (flag or environment), and the global
// flags as given.
void NoteGlobals(const GlobalOptions& g, Invocation* inv) {
  const char* env = std::getenv(kAddressEnvVar);
  inv->address_given = g.addr.has_value() || (env != nullptr && env[0] != 0);
  for (auto [name, value] :
       std::initializer_list<
           std::pair<const char*, const std::optional<std::string>*>>{
           {"addr", &g.addr},
           {"timeout", &g.timeout},
           {"admin_token_file", &g.admin_token_file},
           {"tls_ca_file", &g.tls_ca_file},
           {"tls_cert_file", &g.tls_cert_file},
           {"tls_key_file", &g.tls_key_file}}) {
    if (value->has_value()) {
      inv->global_args.push_back(absl::StrCat("--", name, "=", **value));
    }
  }
}

// Length of the leading run of global flags (with their values).
size_t LeadingFlagsEnd(const std::vector<std::string>& args) {
  size_t i = 0;
  while (i < args.size() && absl::StartsWith(args[i], "--") &&
         args[i] != "--help") {
    i += absl::StrContains(args[i], '=') ? 1 : 2;
  }
  return std::min(i, args.size());
}

// Parses everything after the command name; on failure prints the error
// and the command's usage line.
bool ParseCommandArgs(const std::vector<std::string>& args, size_t begin,
                      const Flags& leading, Invocation* inv,
                      std::ostream& err) {
  std::vector<FlagSpec> allowed = inv->command->flags;
  allowed.insert(allowed.end(), GlobalFlags().begin(), GlobalFlags().end());
  absl::StatusOr<Flags> flags = Flags::Parse(args, begin, allowed);
  auto fail = [&](const absl::Status& status) {
    err << "toolgatectl: " << inv->command->name << ": " << status.message()
        << "\n" << inv->usage << "\n";
    return false;
  };
  if (!flags.ok()) return fail(flags.status());
  GlobalOptions globals;
  MergeGlobals(leading, &globals);
  MergeGlobals(*flags, &globals);
  absl::StatusOr<absl::Duration> timeout =
      ParseTimeout(globals.timeout.value_or("5"));
  if (!timeout.ok()) return fail(timeout.status());
  inv->flags = *std::move(flags);
  inv->timeout = *timeout;
  inv->address = ResolveAddress(globals.addr);
  NoteGlobals(globals, inv);
  // `replay --server ADDR` names the server the way its usage says.
  if (auto server = inv->flags.Get("server")) inv->address = *server;
  if (globals.admin_token_file.has_value()) {
    absl::StatusOr<std::string> token =
        ReadSecretFile(*globals.admin_token_file, "admin_token_file");
    if (!token.ok()) return fail(token.status());
    inv->admin_token = *std::move(token);
  }
  auto credentials = ChannelCredentials(globals);
  if (!credentials.ok()) return fail(credentials.status());
  inv->credentials = *std::move(credentials);
  return true;
}

}  // namespace

ChannelFactory DefaultChannelFactory() {
  return [](const std::string& target,
            const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
    return grpc::CreateChannel(target, credentials);
  };
}

int RunCli(const std::vector<std::string>& args, std::istream& in,
           std::ostream& out, std::ostream& err,
           const ChannelFactory& channel_factory) {
  const size_t i = LeadingFlagsEnd(args);
  absl::StatusOr<Flags> leading = Flags::Parse(
      std::vector<std::string>(args.begin(), args.begin() + i), 0,
      GlobalFlags());
  if (!leading.ok()) return GeneralUsageError(err, leading.status().message());
  if (i == args.size()) return GeneralUsageError(err, "missing command");
  if (args[i] == "help" || args[i] == "--help" || args[i] == "-h") {
    PrintHelp(out);
    return kExitOk;
  }
  std::optional<std::pair<size_t, size_t>> found = FindCommand(args, i);
  if (!found.has_value()) {
    return GeneralUsageError(
        err, absl::StrCat("unknown command \"", args[i], "\""));
  }
  Invocation inv;
  inv.command = &Commands()[found->first];
  inv.usage = UsageLine(*inv.command);
  if (inv.command->local_run) {
    return inv.command->local_run(
        std::vector<std::string>(args.begin() + i + found->second, args.end()),
        in, out, err);
  }
  // A command that runs another program: its flags end at "--".
  std::vector<std::string> command_line;
  std::vector<std::string> own_args = args;
  if (inv.command->takes_command) {
    auto dashes = std::find(args.begin() + i + found->second, args.end(), "--");
    if (dashes == args.end() || dashes + 1 == args.end()) {
      err << "toolgatectl: " << inv.command->name
          << ": missing \"-- COMMAND [ARGS...]\"\n" << inv.usage << "\n";
      return kExitError;
    }
    command_line.assign(dashes + 1, args.end());
    own_args.assign(args.begin(), dashes);
  }
  if (!ParseCommandArgs(own_args, i + found->second, *leading, &inv, err)) {
    return kExitError;
  }
  std::shared_ptr<grpc::ChannelInterface> channel =
      channel_factory(inv.address, inv.credentials);
  if (channel == nullptr) {
    err << "toolgatectl: cannot create a channel to \"" << inv.address
        << "\"\n";
    return kExitError;
  }
  ToolGateClient client(channel,
                        ToolGateClientOptions{inv.timeout, inv.admin_token});
  InputReader inputs(in);
  CommandContext ctx{inv.command->name, inv.usage, inv.flags, inputs,
                     channel, client, inv.timeout, in, out, err};
  ctx.command_line = std::move(command_line);
  ctx.address_given = inv.address_given;
  ctx.address = inv.address;
  ctx.global_args = inv.global_args;
  return inv.command->run(ctx);
}

}  // namespace client
}  // namespace toolgate
