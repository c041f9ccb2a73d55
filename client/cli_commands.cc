#include "client/cli_commands.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "client/cli.h"
#include "client/cli_approvals.h"
#include "client/cli_requests.h"
#include "client/health_check.h"
#include "client/mcp_proxy/proxy_command.h"
#include "client/replay_command.h"
#include "client/schema_check.h"

namespace toolgate {
namespace client {
namespace cli_internal {
namespace {

// Each Fill function applies convenience flags on top of the --request JSON.
template <typename Request>
using Filler = absl::Status (*)(CommandContext&, Request*);
// Maps a successful response to an exit status.
template <typename Response>
using ExitMapper = int (*)(const Response&, std::ostream& err);
template <typename Request, typename Response>
using Method =
    absl::StatusOr<Response> (ToolGateClient::*)(const Request&) const;

template <typename Response>
int ExitOkOnSuccess(const Response&, std::ostream&) {
  return kExitOk;
}

// The same rule agents get from CheckToolCall: one code path decides.
int ExitOnDecision(const v1::ValidateToolCallResponse& response,
                   std::ostream& err) {
  GateResult gate(absl::OkStatus(), response);
  if (gate.allowed()) return kExitOk;
  err << "toolgatectl: validate: denied: " << gate.reason() << "\n";
  return kExitDenied;
}

int ExitOnOutcome(const v1::ExtractVerdictResponse& response,
                  std::ostream& err) {
  VerdictResult verdict(absl::OkStatus(), response);
  if (verdict.passed()) return kExitOk;
  err << "toolgatectl: extract-verdict: not passed: " << verdict.reason()
      << "\n";
  return kExitDenied;
}

int ExitOnOutputVerdict(const v1::ValidateToolOutputResponse& response,
                        std::ostream& err) {
  ToolOutputResult output(absl::OkStatus(), response);
  if (output.valid()) return kExitOk;
  err << "toolgatectl: validate-output: not valid: " << output.reason()
      << "\n";
  return kExitDenied;
}

void PrintJson(const google::protobuf::Message& message, std::ostream& out) {
  std::string json = ToProtoJson(message);
  if (json.empty() || json.back() != '\n') json.push_back('\n');
  out << json;
}

// Approving needs a credential on every listener (loopback included): say
// which, since "UNAUTHENTICATED" alone does not.
void PrintApproverHint(CommandContext& ctx, const absl::Status& status) {
  if (!absl::StartsWith(ctx.command, "approvals ")) return;
  if (status.code() != absl::StatusCode::kUnauthenticated &&
      status.code() != absl::StatusCode::kPermissionDenied) {
    return;
  }
  ctx.err << "toolgatectl: approvals need the approver credential: "
             "--admin_token_file PATH with the server's admin token, or over "
             "mTLS a client certificate the server lists in "
             "--approver_identities\n";
}

template <typename Request, typename Response>
std::function<int(CommandContext&)> Rpc(
    Method<Request, Response> method, Filler<Request> fill,
    ExitMapper<Response> exit_code = &ExitOkOnSuccess<Response>) {
  return [method, fill, exit_code](CommandContext& ctx) {
    Request request;
    if (std::optional<std::string> path = ctx.flags.Get("request")) {
      absl::StatusOr<std::string> json = ctx.inputs.Read("request", *path);
      if (!json.ok()) return UsageError(ctx, json.status());
      absl::Status parsed = ParseProtoJson("--request", *json, &request);
      if (!parsed.ok()) return UsageError(ctx, parsed);
    }
    if (absl::Status filled = fill(ctx, &request); !filled.ok()) {
      return UsageError(ctx, filled);
    }
    absl::StatusOr<Response> response = (ctx.client.*method)(request);
    if (!response.ok()) {
      ctx.err << "toolgatectl: " << ctx.command << ": "
              << response.status().ToString() << "\n";
      PrintApproverHint(ctx, response.status());
      return kExitError;
    }
    PrintJson(*response, ctx.out);
    return exit_code(*response, ctx.err);
  };
}

absl::Status FillCreateSnapshot(CommandContext& ctx,
                                v1::CreateSnapshotRequest* request) {
  if (std::optional<std::string> path = ctx.flags.Get("manifest")) {
    absl::StatusOr<std::string> manifest = ctx.inputs.Read("manifest", *path);
    if (!manifest.ok()) return manifest.status();
    // Sent verbatim: the server parses it strictly and owns the errors.
    request->set_manifest_json(*std::move(manifest));
  }
  if (std::optional<std::string> format = ctx.flags.Get("format")) {
    absl::StatusOr<v1::ManifestFormat> parsed = ParseChoice<v1::ManifestFormat>(
        "format", *format,
        {{"auto", v1::MANIFEST_FORMAT_AUTO},
         {"toolgate", v1::MANIFEST_FORMAT_TOOLGATE},
         {"openai", v1::MANIFEST_FORMAT_OPENAI},
         {"anthropic", v1::MANIFEST_FORMAT_ANTHROPIC},
         {"mcp", v1::MANIFEST_FORMAT_MCP}});
    if (!parsed.ok()) return parsed.status();
    request->set_format(*parsed);
  }
  if (std::optional<std::string> name = ctx.flags.Get("name")) {
    request->set_name(*name);
  }
  return absl::OkStatus();
}

absl::Status FillGetSnapshot(CommandContext& ctx,
                             v1::GetSnapshotRequest* request) {
  if (std::optional<std::string> id = ctx.flags.Get("snapshot")) {
    request->set_snapshot_id(*id);
  }
  if (std::optional<std::string> name = ctx.flags.Get("name")) {
    request->set_name(*name);
  }
  return absl::OkStatus();
}

absl::Status FillDeleteSnapshot(CommandContext& ctx,
                                v1::DeleteSnapshotRequest* request) {
  if (std::optional<std::string> id = ctx.flags.Get("snapshot")) {
    request->set_snapshot_id(*id);
  }
  return absl::OkStatus();
}

absl::Status FillListSnapshots(CommandContext& ctx,
                               v1::ListSnapshotsRequest* request) {
  if (std::optional<std::string> size = ctx.flags.Get("page-size")) {
    int value = 0;
    if (!absl::SimpleAtoi(*size, &value) || value < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--page-size must be a positive integer, got \"", *size, "\""));
    }
    request->set_page_size(value);
  }
  if (std::optional<std::string> token = ctx.flags.Get("page-token")) {
    request->set_page_token(*token);
  }
  return absl::OkStatus();
}

// Every page by default; with --page-token, just that page (and its
// next_page_token), for scripts that page themselves.
int RunListSnapshots(CommandContext& ctx) {
  static const auto* const one_page = new std::function<int(CommandContext&)>(
      Rpc(&ToolGateClient::ListSnapshots, &FillListSnapshots));
  static const auto* const all_pages = new std::function<int(CommandContext&)>(
      Rpc(&ToolGateClient::ListAllSnapshots, &FillListSnapshots));
  return ctx.flags.Get("page-token").has_value() ? (*one_page)(ctx)
                                                 : (*all_pages)(ctx);
}

absl::Status FillOpenRun(CommandContext& ctx, v1::OpenRunRequest* request) {
  if (std::optional<std::string> id = ctx.flags.Get("snapshot")) {
    request->set_snapshot_id(*id);
  }
  if (std::optional<std::string> model = ctx.flags.Get("model")) {
    request->set_model(*model);
  }
  for (const std::string& pair : ctx.flags.GetAll("context")) {
    const size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--context must be KEY=VALUE, got \"", pair, "\""));
    }
    (*request->mutable_context())[pair.substr(0, eq)] = pair.substr(eq + 1);
  }
  struct Limit {
    const char* flag;
    void (v1::OpenRunRequest::*set)(int32_t);
  };
  for (const Limit& limit :
       {Limit{"max-rejects", &v1::OpenRunRequest::set_max_consecutive_rejects},
        Limit{"kill-switch-threshold",
              &v1::OpenRunRequest::set_kill_switch_threshold},
        Limit{"kill-switch-window", &v1::OpenRunRequest::set_kill_switch_window}}) {
    std::optional<std::string> text = ctx.flags.Get(limit.flag);
    if (!text) continue;
    int value = 0;
    if (!absl::SimpleAtoi(*text, &value) || value < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", limit.flag,
                       " must be a non-negative integer, got \"", *text, "\""));
    }
    (request->*limit.set)(value);
  }
  return absl::OkStatus();
}

int RunHealth(CommandContext& ctx) {
  const std::string service = ctx.flags.Get("service").value_or("");
  absl::StatusOr<int> status = CheckHealth(ctx.channel, service, ctx.timeout);
  if (!status.ok()) {
    ctx.err << "toolgatectl: health: " << status.status().ToString() << "\n";
    return kExitError;
  }
  ctx.out << "{\n \"status\": \"" << HealthStatusName(*status) << "\"\n}\n";
  return *status == kHealthServing ? kExitOk : kExitDenied;
}

// Seconds in (0, limit], for --await-approval.
absl::StatusOr<absl::Duration> ParseSeconds(absl::string_view flag,
                                            const std::string& text,
                                            double limit) {
  double seconds = 0;
  if (!absl::SimpleAtod(text, &seconds) || !(seconds > 0) ||
      seconds > limit) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--", flag, " must be seconds in (0, ", limit, "], got \"", text,
        "\""));
  }
  return absl::Seconds(seconds);
}

int RunMcpProxyCommand(CommandContext& ctx) {
  mcp_proxy::McpProxyInvocation inv;
  inv.command_line = ctx.command_line;
  inv.address_given = ctx.address_given;
  inv.address = ctx.address;
  inv.channel = ctx.channel;
  inv.client = &ctx.client;
  inv.timeout = ctx.timeout;
  inv.global_args = ctx.global_args;
  inv.tenant = ctx.flags.Get("tenant").value_or("");
  inv.model = ctx.flags.Get("model").value_or("");
  inv.policy_file = ctx.flags.Get("policy").value_or("");
  inv.accept_tool_changes = ctx.flags.GetBool("accept-tool-changes");
  inv.hide_refused_tools = ctx.flags.GetBool("hide-refused-tools");
  inv.server_binary = ctx.flags.Get("server_binary").value_or("");
  inv.server_args = ctx.flags.GetAll("server_arg");
  if (auto text = ctx.flags.Get("await-approval")) {
    // The sidecar keeps an approval at most a week (--approval_ttl_seconds).
    auto wait = ParseSeconds("await-approval", *text, 7 * 24 * 3600);
    if (!wait.ok()) return UsageError(ctx, wait.status());
    inv.await_approval = *wait;
  }
  if (auto text = ctx.flags.Get("max_message_bytes")) {
    size_t bytes = 0;
    if (!absl::SimpleAtoi(*text, &bytes) || bytes < 1024 ||
        bytes > (size_t{64} << 20)) {
      return UsageError(ctx, absl::InvalidArgumentError(absl::StrCat(
                                 "--max_message_bytes must be 1024 to ",
                                 size_t{64} << 20, ", got \"", *text, "\"")));
    }
    inv.max_message_bytes = bytes;
  }
  return mcp_proxy::RunMcpProxy(inv, ctx.err);
}

// Every RPC command takes --request; listed first in its usage line.
std::vector<FlagSpec> RpcFlags(std::vector<FlagSpec> flags) {
  flags.insert(flags.begin(), FlagSpec{"request", "FILE|-"});
  return flags;
}

std::vector<FlagSpec> RunFlags(std::vector<FlagSpec> more = {}) {
  std::vector<FlagSpec> flags = {
      {"run", "ID"}, {"token", "TOKEN"}, {"run-file", "FILE"}};
  flags.insert(flags.end(), more.begin(), more.end());
  return RpcFlags(std::move(flags));
}

}  // namespace

int UsageError(CommandContext& ctx, const absl::Status& status) {
  ctx.err << "toolgatectl: " << ctx.command << ": " << status.message()
          << "\n" << ctx.usage << "\n";
  return kExitError;
}

const std::vector<Command>& Commands() {
  static const auto* const commands = new std::vector<Command>{
      {"create-snapshot",
       RpcFlags({{"manifest", "FILE|-"},
                 {"format", "auto|toolgate|openai|anthropic|mcp"},
                 {"name", "NAME"}}),
       Rpc(&ToolGateClient::CreateSnapshot, &FillCreateSnapshot)},
      {"get-snapshot", RpcFlags({{"snapshot", "ID"}, {"name", "NAME"}}),
       Rpc(&ToolGateClient::GetSnapshot, &FillGetSnapshot)},
      {"delete-snapshot", RpcFlags({{"snapshot", "ID"}}),
       Rpc(&ToolGateClient::DeleteSnapshot, &FillDeleteSnapshot)},
      {"list-snapshots",
       RpcFlags({{"page-size", "N"}, {"page-token", "TOKEN"}}),
       &RunListSnapshots},
      {"open-run",
       RpcFlags({{"snapshot", "ID"},
                 {"model", "MODEL"},
                 {"context", "KEY=VALUE", /*repeatable=*/true},
                 {"max-rejects", "N"},
                 {"kill-switch-threshold", "N"},
                 {"kill-switch-window", "N"}}),
       Rpc(&ToolGateClient::OpenRun, &FillOpenRun)},
      {"close-run", RunFlags(),
       Rpc(&ToolGateClient::CloseRun,
           &FillRunCredentials<v1::CloseRunRequest>)},
      {"reset-run", RunFlags(),
       Rpc(&ToolGateClient::ResetRun,
           &FillRunCredentials<v1::ResetRunRequest>)},
      {"validate",
       RunFlags({{"snapshot", "ID"},
                 {"native", "FILE|-"},
                 {"text", "FILE|-"},
                 {"stream", "FILE|-"},
                 {"stream-format", "FORMAT"},
                 {"repair", "strict|syntax"},
                 {"approval-id", "ID"}}),
       Rpc(&ToolGateClient::ValidateToolCall, &FillValidate, &ExitOnDecision)},
      {"approvals list", RpcFlags({{"run", "ID"}, {"state", "STATE"}}),
       Rpc(&ToolGateClient::ListApprovals, &FillListApprovals)},
      {"approvals decide",
       RpcFlags({{"approval", "ID"},
                 {"decision", "approve|deny"},
                 {"approver", "NAME"},
                 {"reason", "TEXT"}}),
       Rpc(&ToolGateClient::DecideApproval, &FillDecideApproval)},
      {"extract-verdict",
       RunFlags({{"snapshot", "ID"},
                 {"envelope", "FILE|-"},
                 {"result-schema", "FILE"},
                 {"repair", "strict|syntax"}}),
       Rpc(&ToolGateClient::ExtractVerdict, &FillExtractVerdict,
           &ExitOnOutcome)},
      {"validate-output",
       RunFlags({{"snapshot", "ID"},
                 {"tool", "NAME"},
                 {"content-type", "TYPE"},
                 {"status", "N"},
                 {"body", "FILE|-"},
                 {"mode", "fail-closed|degrade"}}),
       Rpc(&ToolGateClient::ValidateToolOutput, &FillValidateOutput,
           &ExitOnOutputVerdict)},
      {"health", {{"service", "NAME"}}, &RunHealth},
      {"replay",
       {{"audit", "FILE|-"},
        {"snapshot", "ID"},
        {"server", "ADDR"},
        {"manifest", "FILE"}},
       &RunReplay},
      {"mcp-proxy",
       {{"tenant", "NAME"},
        {"model", "MODEL"},
        {"policy", "FILE"},
        {"await-approval", "SECONDS"},
        {"accept-tool-changes", "", false, /*boolean=*/true},
        {"hide-refused-tools", "", false, /*boolean=*/true},
        {"max_message_bytes", "N"},
        {"server_binary", "PATH"},
        {"server_arg", "FLAG", /*repeatable=*/true}},
       &RunMcpProxyCommand,
       nullptr,
       "",
       /*takes_command=*/true},
      {"schema check", {}, nullptr, &RunSchemaCheck,
       "--schema FILE [--dialect draft7|2020-12] [--ref-dir PREFIX=DIR]... "
       "[--format-assertion] [--max-errors N] < INSTANCES.jsonl"},
  };
  return *commands;
}

}  // namespace cli_internal
}  // namespace client
}  // namespace toolgate
