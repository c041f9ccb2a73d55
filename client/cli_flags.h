// Internal to toolgatectl: flag parsing and input reading.
//
// Deliberately small and strict: an unknown flag, a missing value, a value
// given twice, a positional argument or an unreadable file is a usage
// error, never silently ignored.
//
// Not thread-safe (used once per CLI invocation).
#ifndef TOOLGATE_CLIENT_CLI_FLAGS_H_
#define TOOLGATE_CLIENT_CLI_FLAGS_H_

#include <cstddef>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace toolgate {
namespace client {
namespace cli_internal {

struct FlagSpec {
  std::string name;  // Without the leading "--".
  std::string value_hint;  // For usage lines, e.g. "FILE|-".
  bool repeatable = false;
  // Takes no value ("--name" alone reads "true"); "--name=true|false"
  // also accepted.
  bool boolean = false;
};

class Flags {
 public:
  // Parses args[begin..] as "--name value" or "--name=value". Every flag
  // must be in `allowed`.
  static absl::StatusOr<Flags> Parse(const std::vector<std::string>& args,
                                     size_t begin,
                                     const std::vector<FlagSpec>& allowed);

  std::optional<std::string> Get(absl::string_view name) const;
  // A boolean flag: false when absent.
  bool GetBool(absl::string_view name) const;
  std::vector<std::string> GetAll(absl::string_view name) const;

 private:
  std::map<std::string, std::vector<std::string>, std::less<>> values_;
};

// Reads FILE arguments; "-" is stdin, which only one flag may claim.
class InputReader {
 public:
  explicit InputReader(std::istream& in) : in_(in) {}

  absl::StatusOr<std::string> Read(absl::string_view flag,
                                   absl::string_view path);

 private:
  std::istream& in_;
  std::string stdin_claimed_by_;
};

// Strict JSON (duplicate keys, NaN, trailing bytes ... refused) and then the
// proto JSON mapping with unknown fields refused.
absl::Status ParseProtoJson(absl::string_view what, absl::string_view json,
                            google::protobuf::Message* message);

// Proto JSON with enum names, proto field names and default-valued fields.
std::string ToProtoJson(const google::protobuf::Message& message);

// Looks `value` up in a table of accepted spellings.
template <typename Enum>
absl::StatusOr<Enum> ParseChoice(
    absl::string_view flag, absl::string_view value,
    const std::vector<std::pair<std::string, Enum>>& choices) {
  std::string accepted;
  for (const auto& [name, enum_value] : choices) {
    if (name == value) return enum_value;
    accepted += accepted.empty() ? name : "|" + name;
  }
  return absl::InvalidArgumentError("--" + std::string(flag) + " must be " +
                                    accepted + ", got \"" +
                                    std::string(value) + "\"");
}

}  // namespace cli_internal
}  // namespace client
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_CLI_FLAGS_H_
