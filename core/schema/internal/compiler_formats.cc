// Compiling pattern and format: the string keywords that need an engine
// set up at compile time (RE2 via the ECMA-262 translator, format checkers).
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/schema/internal/compiler_impl.h"
#include "core/schema/internal/format.h"
#include "core/schema/internal/keywords.h"
#include "core/schema/internal/regex.h"

namespace toolgate {
namespace schema {
namespace internal {
namespace {
constexpr absl::string_view kAssertedFormats =
    "date-time, date, time, duration, email, hostname, ipv4, ipv6, uri, "
    "uri-reference, uuid, json-pointer, regex";
}  // namespace

absl::Status Compiler::Pattern(const Ctx& c) {
  if (!Has(c, "pattern", kVocabValidation)) return absl::OkStatus();
  const Json& s = *c.schema;
  const std::string where = Join(c.where, "pattern");
  if (!s["pattern"].is_string()) return Refuse(where, "must be a string");
  auto re = Regex(s["pattern"].get<std::string>(), where);
  if (!re.ok()) return re.status();
  Instr& ins = Add(c, Op::kPattern, "pattern", kString);
  ins.patterns.push_back(PatternChild{*std::move(re),
                                      s["pattern"].get<std::string>(), where,
                                      nullptr});
  ins.expected = absl::StrCat("a string matching /",
                              s["pattern"].get<std::string>(), "/");
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const RE2>> Compiler::Regex(
    absl::string_view pattern, const std::string& where) {
  bool compiled_now = false;
  auto re = InternEcmaRegex(pattern, where, options_.max_pattern_instructions,
                            &compiled_now);
  if (re.ok() && !compiled_now) {
    program_->reused_pattern_bytes += PatternBytes(**re);
  }
  return re;
}

// Only when CompileOptions::format_assertion; otherwise an annotation.
absl::Status Compiler::FormatAssertion(const Ctx& c) {
  const Json& s = *c.schema;
  const bool format_vocab =
      c.resource->vocab & (kVocabFormatAnnotation | kVocabFormatAssertion);
  if (!s.contains("format") || !format_vocab || !options_.format_assertion) {
    return absl::OkStatus();
  }
  if (!s["format"].is_string()) {
    return Refuse(Join(c.where, "format"), "must be a string");
  }
  const Format f = FormatFromName(s["format"].get<std::string>());
  if (f == Format::kUnknown) {
    // Asked to assert a format it cannot check (or a misspelt one), the
    // engine refuses rather than let every value through.
    const std::string hint = FormatSuggestion(s["format"].get<std::string>());
    return Refuse(Join(c.where, "format"),
                  absl::StrCat("format \"", s["format"].get<std::string>(),
                               "\" cannot be asserted (", hint,
                               hint.empty() ? "" : " ", "supported: ",
                               kAssertedFormats, ")"));
  }
  Instr& ins = Add(c, Op::kFormat, "format", kString);
  ins.format = static_cast<int>(f);
  ins.expected = absl::StrCat("format ", s["format"].get<std::string>());
  return absl::OkStatus();
}

}  // namespace internal
}  // namespace schema
}  // namespace toolgate
