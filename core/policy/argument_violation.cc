#include "core/policy/argument_violation.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "core/json/utf8.h"
#include "core/util/truncate.h"

namespace toolgate::policy {

std::string QuoteValue(absl::string_view value) {
  // Escaping keeps UTF-8 text readable; ToValidUtf8 because a message
  // goes into a protobuf string, which must be valid UTF-8.
  return absl::StrCat("\"",
                      ToValidUtf8(absl::Utf8SafeCHexEscape(
                          TruncateText(value, kMaxEchoedValueBytes))),
                      "\"");
}

ArgumentViolation MakeViolation(absl::string_view code,
                                absl::string_view message) {
  return ArgumentViolation{std::string(code), std::string(message)};
}

}  // namespace toolgate::policy
