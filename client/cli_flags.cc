#include "client/cli_flags.h"

#include <iterator>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/json/strict_json.h"
#include "core/util/regular_file.h"
#include "google/protobuf/util/json_util.h"

namespace toolgate {
namespace client {
namespace cli_internal {
namespace {

// Far above any sane manifest or model output; stops a mistaken
// `--native /dev/zero` from eating memory.
constexpr size_t kMaxInputBytes = 32 << 20;

const FlagSpec* FindSpec(const std::vector<FlagSpec>& allowed,
                         absl::string_view name) {
  for (const FlagSpec& spec : allowed) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

absl::StatusOr<std::string> ReadBounded(std::istream& stream,
                                        absl::string_view what) {
  std::string data;
  char buffer[64 * 1024];
  while (stream.read(buffer, sizeof(buffer)) || stream.gcount() > 0) {
    data.append(buffer, static_cast<size_t>(stream.gcount()));
    if (data.size() > kMaxInputBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " is larger than ", kMaxInputBytes, " bytes"));
    }
  }
  if (stream.bad()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot read ", what));
  }
  return data;
}

}  // namespace

absl::StatusOr<Flags> Flags::Parse(const std::vector<std::string>& args,
                                   size_t begin,
                                   const std::vector<FlagSpec>& allowed) {
  Flags flags;
  for (size_t i = begin; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!absl::StartsWith(arg, "--") || arg.size() == 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument \"", arg, "\""));
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    const FlagSpec* spec = FindSpec(allowed, name);
    if (spec == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag --", name));
    }
    if (spec->boolean) {
      if (!value.has_value()) value = "true";
      if (*value != "true" && *value != "false") {
        return absl::InvalidArgumentError(absl::StrCat(
            "--", name, " takes no value (or =true / =false), got \"",
            *value, "\""));
      }
    }
    if (!value.has_value()) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", name, " needs a value"));
      }
      value = args[++i];
    }
    std::vector<std::string>& slot = flags.values_[name];
    if (!slot.empty() && !spec->repeatable) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", name, " given more than once"));
    }
    slot.push_back(*std::move(value));
  }
  return flags;
}

std::optional<std::string> Flags::Get(absl::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second.front();
}

bool Flags::GetBool(absl::string_view name) const {
  return Get(name).value_or("false") == "true";
}

std::vector<std::string> Flags::GetAll(absl::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return {};
  return it->second;
}

absl::StatusOr<std::string> InputReader::Read(absl::string_view flag,
                                              absl::string_view path) {
  if (path == "-") {
    if (!stdin_claimed_by_.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag, " and --", stdin_claimed_by_,
                       " cannot both read stdin"));
    }
    stdin_claimed_by_ = std::string(flag);
    return ReadBounded(in_, "stdin");
  }
  // A regular file (or a symlink to one): a FIFO or a device named here
  // would block or never end; stdin is "-".
  absl::StatusOr<std::string> read =
      ReadRegularFile(std::string(path), kMaxInputBytes);
  if (!read.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": ", read.status().message()));
  }
  return read;
}

absl::Status ParseProtoJson(absl::string_view what, absl::string_view json,
                            google::protobuf::Message* message) {
  JsonLimits limits;
  limits.max_bytes = kMaxInputBytes;
  absl::StatusOr<Json> strict = ParseStrictJson(json, limits);
  if (!strict.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": ", JsonErrorCode(strict.status()), " at \"",
        JsonErrorPointer(strict.status()), "\": ", strict.status().message()));
  }
  if (!strict->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": expected a JSON object"));
  }
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), message,
      options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not a valid ", message->GetTypeName(), ": ",
                     status.ToString()));
  }
  return absl::OkStatus();
}

std::string ToProtoJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(message, &json, options)
           .ok()) {
    // Only reachable for messages with Any fields we cannot resolve; fall
    // back to something a human can still read.
    return message.ShortDebugString();
  }
  return json;
}

}  // namespace cli_internal
}  // namespace client
}  // namespace toolgate
