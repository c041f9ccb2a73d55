// shell_arg and identifier.
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/json/utf8.h"
#include "core/policy/argument_checks.h"
#include "re2/re2.h"

namespace toolgate::policy {
namespace {

// An allowlist, not a list of metacharacters: a byte nobody thought of
// (a non-ASCII space, a shell's extension) is refused by default.
constexpr bool IsShellSafe(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' ||
         c == '/' || c == '+' || c == ',' || c == ':' || c == '=' || c == '@' ||
         c == '%';
}

// How a command may read a word by its first byte instead of as a value,
// or empty when it cannot.
absl::string_view LeadingOption(char first) {
  switch (first) {
    case '-':
      return "would be read as an option";
    case '+':
      // set +x, date +FORMAT, vim/less/more +COMMAND, tail +N.
      return "would be read as an option by many commands (set, date, vim, "
             "less, tail)";
    case '@':
      // gcc, javac, argparse's fromfile_prefix_chars, curl -d @FILE.
      return "would be read as a response file whose contents become more "
             "arguments (gcc, javac, argparse, curl -d)";
    default:
      return {};
  }
}

constexpr size_t kMaxPatternBytes = 4096;

}  // namespace

std::optional<ArgumentViolation> CheckShellArg(absl::string_view value) {
  if (value.empty()) {
    // An unquoted empty word vanishes and shifts the following arguments.
    return MakeViolation("shell_metacharacter",
                         "the shell argument is empty; give a non-empty value");
  }
  if (absl::string_view why = LeadingOption(value[0]); !why.empty()) {
    return MakeViolation(
        "option_injection",
        absl::StrCat("shell argument ", QuoteValue(value), " starts with '",
                     value.substr(0, 1), "' and ", why,
                     "; give a value that does not start with '-', '+' or "
                     "'@' (e.g. prefix a path with './')"));
  }
  for (size_t i = 0; i < value.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(value[i]);
    if (!IsShellSafe(c) || (i == 0 && c == '=')) {
      return MakeViolation(
          "shell_metacharacter",
          absl::StrCat("shell argument ", QuoteValue(value),
                       " contains a character that is not allowed at byte ", i,
                       "; use only letters, digits and _ - . / + , : = @ %"));
    }
  }
  return std::nullopt;
}

absl::StatusOr<IdentifierRule> IdentifierRule::Compile(
    absl::string_view pattern) {
  if (pattern.empty()) {
    return absl::InvalidArgumentError("identifier rule: pattern is empty");
  }
  if (pattern.size() > kMaxPatternBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("identifier rule: pattern is longer than ",
                     kMaxPatternBytes, " bytes"));
  }
  RE2::Options options;
  options.set_log_errors(false);
  options.set_encoding(RE2::Options::EncodingUTF8);
  auto regex = std::make_shared<const re2::RE2>(
      re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!regex->ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("identifier rule: pattern ", QuoteValue(pattern),
                     " is not a valid RE2 expression: ", regex->error()));
  }
  return IdentifierRule(std::string(pattern), std::move(regex));
}

std::optional<ArgumentViolation> CheckIdentifier(absl::string_view value,
                                                 const IdentifierRule& rule) {
  // RE2 may match ill-formed bytes with '.', so they never pass.
  if (FindInvalidUtf8(value) == absl::string_view::npos &&
      RE2::FullMatch(re2::StringPiece(value.data(), value.size()),
                     rule.regex())) {
    return std::nullopt;
  }
  return MakeViolation(
      "identifier_invalid",
      absl::StrCat("value ", QuoteValue(value),
                   " is not a valid identifier: it must match the pattern ",
                   QuoteValue(rule.pattern()), " in full"));
}

}  // namespace toolgate::policy
