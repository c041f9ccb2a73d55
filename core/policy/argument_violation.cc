#include "core/policy/argument_violation.h"

#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/json/utf8.h"
#include "core/text/invisible_chars.h"
#include "core/util/truncate.h"

namespace toolgate::policy {
namespace {

// `s` with each bidi control written as \uXXXX: quoted in a message, one
// would reorder the message around it for whoever reads it.
std::string EscapeBidi(std::string s) {
  // Every bidi control's UTF-8 starts with 0xD8 (U+061C) or 0xE2.
  if (s.find_first_of("\xD8\xE2") == std::string::npos) return s;
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size();) {
    size_t len = 1;
    const char32_t c = text::DecodeUtf8At(s, i, &len);
    if (text::IsBidiControl(c)) {
      absl::StrAppendFormat(&out, "\\u%04x", static_cast<uint32_t>(c));
    } else {
      out.append(s, i, len);
    }
    i += len;
  }
  return out;
}

}  // namespace

std::string QuoteValue(absl::string_view value) {
  // Escaping keeps UTF-8 text readable; ToValidUtf8 because a message
  // goes into a protobuf string, which must be valid UTF-8.
  return absl::StrCat("\"",
                      EscapeBidi(ToValidUtf8(absl::Utf8SafeCHexEscape(
                          TruncateText(value, kMaxEchoedValueBytes)))),
                      "\"");
}

absl::string_view ArgumentPartName(ArgumentPart part) {
  return part == ArgumentPart::kMemberName ? "the member name" : "the argument";
}

ArgumentViolation MakeViolation(absl::string_view code,
                                absl::string_view message) {
  return ArgumentViolation{std::string(code), std::string(message)};
}

}  // namespace toolgate::policy
