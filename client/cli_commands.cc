#include "client/cli_commands.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "client/cli.h"
#include "client/cli_approvals.h"
#include "client/health_check.h"
#include "client/replay_command.h"
#include "client/schema_check.h"
#include "core/stream/sse.h"

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
      return kExitError;
    }
    PrintJson(*response, ctx.out);
    return exit_code(*response, ctx.err);
  };
}

// --run-file (as printed by open-run), then --run / --token on top.
template <typename Request>
absl::Status FillRunCredentials(CommandContext& ctx, Request* request) {
  if (std::optional<std::string> path = ctx.flags.Get("run-file")) {
    absl::StatusOr<std::string> json = ctx.inputs.Read("run-file", *path);
    if (!json.ok()) return json.status();
    v1::OpenRunResponse run;
    if (absl::Status s = ParseProtoJson("--run-file", *json, &run); !s.ok()) {
      return s;
    }
    if (run.run_id().empty() || run.run_token().empty()) {
      return absl::InvalidArgumentError(
          "--run-file: needs both run_id and run_token");
    }
    request->set_run_id(run.run_id());
    request->set_run_token(run.run_token());
  }
  if (std::optional<std::string> id = ctx.flags.Get("run")) {
    request->set_run_id(*id);
  }
  if (std::optional<std::string> token = ctx.flags.Get("token")) {
    request->set_run_token(*token);
  }
  return absl::OkStatus();
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

absl::StatusOr<v1::RepairPolicy> ParseRepair(const std::string& value);

// openai_chat, OPENAI_CHAT or STREAM_FORMAT_OPENAI_CHAT.
absl::StatusOr<v1::StreamFormat> ParseStreamFormat(const std::string& value) {
  std::string name = absl::AsciiStrToUpper(value);
  if (!absl::StartsWith(name, "STREAM_FORMAT_")) {
    name = "STREAM_FORMAT_" + name;
  }
  v1::StreamFormat format = v1::STREAM_FORMAT_UNSPECIFIED;
  if (!v1::StreamFormat_Parse(name, &format) ||
      format == v1::STREAM_FORMAT_UNSPECIFIED) {
    return absl::InvalidArgumentError(
        absl::StrCat("--stream-format must be openai_chat|openai_responses|"
                     "anthropic_messages|gemini, got \"",
                     value, "\""));
  }
  return format;
}

// --stream FILE (one event per line, or an SSE capture) with its
// --stream-format: the events sent as stream_events.
absl::Status FillStream(CommandContext& ctx,
                        v1::ValidateToolCallRequest* request) {
  std::optional<std::string> path = ctx.flags.Get("stream");
  std::optional<std::string> format = ctx.flags.Get("stream-format");
  if (path.has_value() != format.has_value()) {
    return absl::InvalidArgumentError(
        "--stream and --stream-format go together");
  }
  if (!path.has_value()) return absl::OkStatus();
  absl::StatusOr<v1::StreamFormat> parsed = ParseStreamFormat(*format);
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<std::string> capture = ctx.inputs.Read("stream", *path);
  if (!capture.ok()) return capture.status();
  v1::StreamEvents* events = request->mutable_stream_events();
  events->set_format(*parsed);
  for (std::string& e : stream::SplitEvents(*capture)) {
    events->add_events(std::move(e));
  }
  return absl::OkStatus();
}

absl::Status FillValidate(CommandContext& ctx,
                          v1::ValidateToolCallRequest* request) {
  if (absl::Status s = FillRunCredentials(ctx, request); !s.ok()) return s;
  if (std::optional<std::string> id = ctx.flags.Get("snapshot")) {
    request->set_snapshot_id(*id);
  }
  std::optional<std::string> native = ctx.flags.Get("native");
  std::optional<std::string> text = ctx.flags.Get("text");
  const int outputs = native.has_value() + text.has_value() +
                      ctx.flags.Get("stream").has_value();
  if (outputs > 1) {
    return absl::InvalidArgumentError(
        "give one of --native, --text or --stream");
  }
  if (absl::Status s = FillStream(ctx, request); !s.ok()) return s;
  if (native.has_value() || text.has_value()) {
    absl::StatusOr<std::string> output =
        native.has_value() ? ctx.inputs.Read("native", *native)
                           : ctx.inputs.Read("text", *text);
    if (!output.ok()) return output.status();
    if (native.has_value()) {
      request->set_native_json(*std::move(output));
    } else {
      request->set_text(*std::move(output));
    }
  }
  if (std::optional<std::string> repair = ctx.flags.Get("repair")) {
    absl::StatusOr<v1::RepairPolicy> parsed = ParseRepair(*repair);
    if (!parsed.ok()) return parsed.status();
    request->set_repair(*parsed);
  }
  if (std::optional<std::string> id = ctx.flags.Get("approval-id")) {
    request->set_approval_id(*id);
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::RepairPolicy> ParseRepair(const std::string& value) {
  return ParseChoice<v1::RepairPolicy>(
      "repair", value,
      {{"strict", v1::REPAIR_POLICY_STRICT},
       {"syntax", v1::REPAIR_POLICY_SYNTAX_REPAIR}});
}

absl::Status FillExtractVerdict(CommandContext& ctx,
                                v1::ExtractVerdictRequest* request) {
  if (absl::Status s = FillRunCredentials(ctx, request); !s.ok()) return s;
  if (std::optional<std::string> id = ctx.flags.Get("snapshot")) {
    request->set_snapshot_id(*id);
  }
  if (std::optional<std::string> path = ctx.flags.Get("envelope")) {
    absl::StatusOr<std::string> envelope = ctx.inputs.Read("envelope", *path);
    if (!envelope.ok()) return envelope.status();
    request->set_envelope(*std::move(envelope));
  }
  if (std::optional<std::string> path = ctx.flags.Get("result-schema")) {
    absl::StatusOr<std::string> schema =
        ctx.inputs.Read("result-schema", *path);
    if (!schema.ok()) return schema.status();
    request->set_result_schema(*std::move(schema));
  }
  if (std::optional<std::string> repair = ctx.flags.Get("repair")) {
    absl::StatusOr<v1::RepairPolicy> parsed = ParseRepair(*repair);
    if (!parsed.ok()) return parsed.status();
    request->set_repair(*parsed);
  }
  return absl::OkStatus();
}

// --tool, --content-type, --status, --body, --mode (run flags via
// FillRunCredentials).
absl::Status FillOutputFields(CommandContext& ctx,
                              v1::ValidateToolOutputRequest* request) {
  if (std::optional<std::string> tool = ctx.flags.Get("tool")) {
    request->set_tool_name(*tool);
  }
  if (std::optional<std::string> type = ctx.flags.Get("content-type")) {
    request->set_content_type(*type);
  }
  if (std::optional<std::string> status = ctx.flags.Get("status")) {
    int value = 0;
    if (!absl::SimpleAtoi(*status, &value)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--status must be an integer (-1: no HTTP transport), got \"",
          *status, "\""));
    }
    request->set_http_status(value);
  }
  if (std::optional<std::string> path = ctx.flags.Get("body")) {
    absl::StatusOr<std::string> body = ctx.inputs.Read("body", *path);
    if (!body.ok()) return body.status();
    request->set_body(*std::move(body));
  }
  if (std::optional<std::string> mode = ctx.flags.Get("mode")) {
    absl::StatusOr<v1::OutputMode> parsed = ParseChoice<v1::OutputMode>(
        "mode", *mode,
        {{"fail-closed", v1::OUTPUT_MODE_FAIL_CLOSED},
         {"degrade", v1::OUTPUT_MODE_DEGRADE}});
    if (!parsed.ok()) return parsed.status();
    request->set_mode(*parsed);
  }
  return absl::OkStatus();
}

absl::Status FillValidateOutput(CommandContext& ctx,
                                v1::ValidateToolOutputRequest* request) {
  if (absl::Status s = FillRunCredentials(ctx, request); !s.ok()) return s;
  if (std::optional<std::string> id = ctx.flags.Get("snapshot")) {
    request->set_snapshot_id(*id);
  }
  return FillOutputFields(ctx, request);
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
      {"schema check", {}, nullptr, &RunSchemaCheck,
       "--schema FILE [--dialect draft7|2020-12] [--ref-dir PREFIX=DIR]... "
       "[--format-assertion] [--max-errors N] < INSTANCES.jsonl"},
  };
  return *commands;
}

}  // namespace cli_internal
}  // namespace client
}  // namespace toolgate
