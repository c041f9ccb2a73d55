// toolgatectl as a library, so the binary's argument parsing and exit codes
// can be tested against an in-process server.
//
//   toolgatectl [--addr HOST:PORT|unix:PATH] [--timeout SECONDS]
//               [--admin_token_file PATH] [--tls_ca_file PEM]
//               [--tls_cert_file PEM --tls_key_file PEM] COMMAND ...
//
// Every RPC command takes the full request as proto JSON (--request FILE,
// or --request - for stdin) plus convenience flags that override it, and
// prints the response as proto JSON on stdout. Errors go to stderr.
//
// Exit status, so shell scripts can gate on it:
//   0  success; but for `validate` only DECISION_ALLOW (with well-formed
//      calls), `extract-verdict` only OUTCOME_PASS, `validate-output` only
//      OUTPUT_VERDICT_VALID, `health` only SERVING
//   1  the server answered, but not with the one positive value above
//   2  usage error, unreadable input, or RPC failure (including timeouts)
//
// Thread-safety: RunCli keeps no global state; concurrent calls are safe if
// their streams are distinct.
#ifndef TOOLGATE_CLIENT_CLI_H_
#define TOOLGATE_CLIENT_CLI_H_

#include <functional>
#include <istream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "grpcpp/grpcpp.h"

namespace toolgate {
namespace client {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDenied = 1;
inline constexpr int kExitError = 2;

inline constexpr char kDefaultAddress[] = "127.0.0.1:50051";
inline constexpr char kAddressEnvVar[] = "TOOLGATE_ADDR";

// Makes the channel for a target with the credentials the --tls_* flags
// chose (plaintext without them); may return nullptr to report failure.
using ChannelFactory = std::function<std::shared_ptr<grpc::ChannelInterface>(
    const std::string& target,
    const std::shared_ptr<grpc::ChannelCredentials>& credentials)>;

// grpc::CreateChannel(target, credentials).
ChannelFactory DefaultChannelFactory();

// `args` excludes the program name. Reads stdin only when a flag says "-".
int RunCli(const std::vector<std::string>& args, std::istream& in,
           std::ostream& out, std::ostream& err,
           const ChannelFactory& channel_factory);

}  // namespace client
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_CLI_H_
