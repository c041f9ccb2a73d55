#include "client/replay_command.h"

#include <cstdint>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "client/cli.h"
#include "core/replay/replay.h"
#include "core/util/regular_file.h"

namespace toolgate {
namespace client {
namespace cli_internal {
namespace {

// The server's enum value named as the audit names decisions.
template <typename Enum>
std::string Named(const std::string& (*name)(Enum), Enum value,
                  absl::string_view prefix) {
  return std::string(absl::StripPrefix(name(value), prefix));
}

template <typename Response>
std::vector<std::string> ViolationCodes(const Response& response) {
  std::vector<std::string> codes;
  for (const v1::Violation& v : response.violations())
    codes.push_back(v.code());
  return codes;
}

// The payload is the request in proto JSON without its target.
template <typename Request>
absl::StatusOr<Request> RequestFrom(const Json& payload,
                                    const std::string& snapshot) {
  Request request;
  absl::Status parsed =
      ParseProtoJson("audit payload", payload.dump(), &request);
  if (!parsed.ok()) return parsed;
  request.set_snapshot_id(snapshot);
  return request;
}

// Asks the server, statelessly, against `snapshot`.
absl::StatusOr<Redecision> DecideRemotely(const ToolGateClient& client,
                                          const std::string& snapshot,
                                          absl::string_view rpc,
                                          const Json& payload) {
  if (rpc == "ValidateToolCall") {
    auto request = RequestFrom<v1::ValidateToolCallRequest>(payload, snapshot);
    if (!request.ok()) return request.status();
    auto r = client.ValidateToolCall(*request);
    if (!r.ok()) return r.status();
    return Redecision{Named(&v1::Decision_Name, r->decision(), "DECISION_"),
                      ViolationCodes(*r)};
  }
  if (rpc == "ExtractVerdict") {
    auto request = RequestFrom<v1::ExtractVerdictRequest>(payload, snapshot);
    if (!request.ok()) return request.status();
    auto r = client.ExtractVerdict(*request);
    if (!r.ok()) return r.status();
    Redecision now{Named(&v1::Outcome_Name, r->outcome(), "OUTCOME_"), {}};
    if (!r->stop_reason().empty()) now.codes.push_back(r->stop_reason());
    return now;
  }
  if (rpc == "ValidateToolOutput") {
    auto request =
        RequestFrom<v1::ValidateToolOutputRequest>(payload, snapshot);
    if (!request.ok()) return request.status();
    auto r = client.ValidateToolOutput(*request);
    if (!r.ok()) return r.status();
    return Redecision{
        Named(&v1::OutputVerdict_Name, r->verdict(), "OUTPUT_VERDICT_"),
        ViolationCodes(*r)};
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown rpc ", rpc));
}

absl::StatusOr<Redecide> Decider(CommandContext& ctx,
                                 std::unique_ptr<LocalRedecider>* local) {
  const auto snapshot = ctx.flags.Get("snapshot");
  const auto manifest = ctx.flags.Get("manifest");
  if (snapshot.has_value() == manifest.has_value()) {
    return absl::InvalidArgumentError(
        "give exactly one of --snapshot ID (with --server ADDR) and "
        "--manifest FILE");
  }
  if (manifest.has_value()) {
    if (ctx.flags.Get("server")) {
      return absl::InvalidArgumentError(
          "--server goes with --snapshot, not --manifest");
    }
    auto json = ctx.inputs.Read("manifest", *manifest);
    if (!json.ok()) return json.status();
    auto made = LocalRedecider::ForManifest(*json);
    if (!made.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--manifest: ", made.status().message()));
    }
    *local = *std::move(made);
    return Redecide(
        [l = local->get()](absl::string_view rpc, const Json& payload) {
          return l->Decide(rpc, payload);
        });
  }
  return Redecide([&client = ctx.client, id = *snapshot](absl::string_view rpc,
                                                         const Json& payload) {
    return DecideRemotely(client, id, rpc, payload);
  });
}

}  // namespace

int RunReplay(CommandContext& ctx) {
  const auto audit_path = ctx.flags.Get("audit");
  if (!audit_path.has_value()) {
    return UsageError(ctx, absl::InvalidArgumentError("--audit is required"));
  }
  std::unique_ptr<LocalRedecider> local;
  absl::StatusOr<Redecide> decide = Decider(ctx, &local);
  if (!decide.ok()) return UsageError(ctx, decide.status());
  std::ifstream file;
  std::istream* in = &ctx.in;
  uint64_t size = std::numeric_limits<uint64_t>::max();
  if (*audit_path != "-") {
    // A regular file: a FIFO named here would block, a device never end
    // (stdin is "-"). The log is streamed, not read whole.
    if (absl::Status s = CheckRegularFile(*audit_path); !s.ok()) {
      return UsageError(ctx, absl::InvalidArgumentError(
                                 absl::StrCat("--audit: ", s.message())));
    }
    file.open(*audit_path, std::ios::binary | std::ios::ate);
    if (!file) {
      return UsageError(ctx, absl::InvalidArgumentError(absl::StrCat(
                                 "--audit: cannot open ", *audit_path)));
    }
    // Only what was recorded before replay began: a server auditing to
    // this file appends a line for every call replay makes.
    size = static_cast<uint64_t>(file.tellg());
    file.seekg(0);
    in = &file;
  }
  absl::StatusOr<ReplayReport> report = Replay(*in, *decide, size);
  if (!report.ok()) {
    ctx.err << "toolgatectl: replay: " << report.status().ToString() << "\n";
    return kExitError;
  }
  ctx.out << report->summary.dump() << "\n";
  return report->changed ? kExitDenied : kExitOk;
}

}  // namespace cli_internal
}  // namespace client
}  // namespace toolgate
