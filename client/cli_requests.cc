#include "client/cli_requests.h"

#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "client/cli_flags.h"
#include "core/stream/sse.h"

namespace toolgate {
namespace client {
namespace cli_internal {
namespace {

// The run (--run-file, --run, --token) and --snapshot: every decision
// command names what it is decided against the same way.
template <typename Request>
absl::Status FillTarget(CommandContext& ctx, Request* request) {
  if (absl::Status s = FillRunCredentials(ctx, request); !s.ok()) return s;
  if (std::optional<std::string> id = ctx.flags.Get("snapshot")) {
    request->set_snapshot_id(*id);
  }
  return absl::OkStatus();
}

// --repair strict|syntax.
template <typename Request>
absl::Status FillRepair(CommandContext& ctx, Request* request) {
  std::optional<std::string> repair = ctx.flags.Get("repair");
  if (!repair.has_value()) return absl::OkStatus();
  absl::StatusOr<v1::RepairPolicy> parsed = ParseChoice<v1::RepairPolicy>(
      "repair", *repair,
      {{"strict", v1::REPAIR_POLICY_STRICT},
       {"syntax", v1::REPAIR_POLICY_SYNTAX_REPAIR}});
  if (!parsed.ok()) return parsed.status();
  request->set_repair(*parsed);
  return absl::OkStatus();
}

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

constexpr char kTextFormats[] =
    "hermes|mistral|llama3_json|pythonic|granite|deepseek_v3";

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

}  // namespace

absl::StatusOr<std::optional<v1::TextFormat>> TextFormatFlag(
    CommandContext& ctx) {
  std::optional<std::string> value = ctx.flags.Get("text-format");
  if (!value.has_value()) return std::optional<v1::TextFormat>();
  std::string name = absl::AsciiStrToUpper(*value);
  if (!absl::StartsWith(name, "TEXT_FORMAT_")) name = "TEXT_FORMAT_" + name;
  v1::TextFormat format = v1::TEXT_FORMAT_UNSPECIFIED;
  if (!v1::TextFormat_Parse(name, &format) ||
      format == v1::TEXT_FORMAT_UNSPECIFIED) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--text-format must be ", kTextFormats, ", got \"", *value, "\""));
  }
  return std::optional<v1::TextFormat>(format);
}

absl::Status FillValidate(CommandContext& ctx,
                          v1::ValidateToolCallRequest* request) {
  if (absl::Status s = FillTarget(ctx, request); !s.ok()) return s;
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
  if (absl::Status s = FillRepair(ctx, request); !s.ok()) return s;
  absl::StatusOr<std::optional<v1::TextFormat>> format = TextFormatFlag(ctx);
  if (!format.ok()) return format.status();
  if (format->has_value()) request->set_text_format(**format);
  if (std::optional<std::string> id = ctx.flags.Get("approval-id")) {
    request->set_approval_id(*id);
  }
  return absl::OkStatus();
}

absl::Status FillExtractVerdict(CommandContext& ctx,
                                v1::ExtractVerdictRequest* request) {
  if (absl::Status s = FillTarget(ctx, request); !s.ok()) return s;
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
  if (absl::Status s = FillRepair(ctx, request); !s.ok()) return s;
  return absl::OkStatus();
}

absl::Status FillValidateOutput(CommandContext& ctx,
                                v1::ValidateToolOutputRequest* request) {
  if (absl::Status s = FillTarget(ctx, request); !s.ok()) return s;
  return FillOutputFields(ctx, request);
}

}  // namespace cli_internal
}  // namespace client
}  // namespace toolgate
