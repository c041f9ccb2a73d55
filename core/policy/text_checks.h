// The `text` argument kind of policy.arguments (issue 12): free text bound
// for another prompt or an email. No gRPC, no I/O.
//
//   {"kind": "text", "strip_html": true|false, "max_length": N,
//    "injection": "reject"}
//
// strip_html (StripHtml) runs in the gate's "policy (coerce)" stage,
// before the schema; CheckText runs in "policy (arguments)", after it, on
// the value as stripped. Codes (public contract):
//   text_invalid        not a string; markup past the strip budget; text
//                       whose stripped form still holds a tag (escaped
//                       markup such as "&lt;b&gt;" decodes to "<b>")
//   text_too_long       more than max_length Unicode code points
//   argument_injection  the output gate's injection detector
//                       (core/output/injection.h) matched; the message
//                       names the pattern's code
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_POLICY_TEXT_CHECKS_H_
#define TOOLGATE_CORE_POLICY_TEXT_CHECKS_H_

#include <cstddef>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/policy/argument_violation.h"

namespace toolgate::policy {

inline constexpr int kMaxTextLength = 1000000;

struct TextRule {
  bool strip_html = false;
  int max_length = 0;  // Code points, 1..kMaxTextLength; 0: not given.
  bool reject_injection = false;
};

// At load: max_length 0 or in 1..kMaxTextLength, and the rule does
// something (a rule that checks nothing is a misconfiguration).
absl::Status ValidateTextRule(const TextRule& rule);

// The HTML parser's work per model output (gumbo is quadratic in the
// number of tags on deep nesting), as core/output bounds its markup scan:
// every stripped value's tag openers ("<" + letter, "!", "/" or "?") and
// bytes are taken from one budget. Not thread-safe; one per output.
struct StripBudget {
  size_t tags_left = 1024;
  size_t bytes_left = 256 << 10;
};

// The text a browser would show for `value` parsed as an HTML body
// (gumbo, HTML5): text nodes concatenated, character references decoded;
// tags, attributes, comments, doctypes dropped, and the contents of
// script, style, template, noscript, noembed, noframes, iframe and object
// too. No separator is put where a tag was ("a<br>b" is "ab"). A value
// without a tag opener or "&" is text to any parser and is returned
// unchanged without a parse. Returns text_invalid when the value would go
// past `budget` (never the value unstripped) or when the result still
// holds a tag opener; otherwise sets `*stripped` (equal to `value` when
// there was nothing to strip).
std::optional<ArgumentViolation> StripHtml(absl::string_view value,
                                           StripBudget& budget,
                                           std::string* stripped);

// max_length, then injection, on the (stripped) value.
std::optional<ArgumentViolation> CheckText(absl::string_view value,
                                           const TextRule& rule);

// Unicode code points in UTF-8 `text` (bytes that are not continuation
// bytes).
size_t CodePoints(absl::string_view text);

}  // namespace toolgate::policy

#endif  // TOOLGATE_CORE_POLICY_TEXT_CHECKS_H_
