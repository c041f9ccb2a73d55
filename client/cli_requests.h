// Internal to toolgatectl: the convenience flags of the commands that ask
// for a decision (validate, extract-verdict, validate-output), applied on
// top of the --request JSON.
#ifndef TOOLGATE_CLIENT_CLI_REQUESTS_H_
#define TOOLGATE_CLIENT_CLI_REQUESTS_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/cli_commands.h"
#include "toolgate/v1/toolgate.pb.h"

namespace toolgate {
namespace client {
namespace cli_internal {

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

// --text-format hermes|mistral|llama3_json|pythonic|granite|deepseek_v3
// (any case, or the enum's full name TEXT_FORMAT_...): the model family's
// call syntax (docs/formats.md). Unset: nullopt.
absl::StatusOr<std::optional<v1::TextFormat>> TextFormatFlag(
    CommandContext& ctx);

// --snapshot, --native | --text | --stream with --stream-format, --repair,
// --text-format, --approval-id.
absl::Status FillValidate(CommandContext& ctx,
                          v1::ValidateToolCallRequest* request);

// --snapshot, --envelope, --result-schema, --repair.
absl::Status FillExtractVerdict(CommandContext& ctx,
                                v1::ExtractVerdictRequest* request);

// --snapshot, --tool, --content-type, --status, --body, --mode.
absl::Status FillValidateOutput(CommandContext& ctx,
                                v1::ValidateToolOutputRequest* request);

}  // namespace cli_internal
}  // namespace client
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_CLI_REQUESTS_H_
