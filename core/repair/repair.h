// Syntax-only repair of model-written JSON, applied under SYNTAX_REPAIR.
//
// Models often write almost-JSON: trailing commas, single or typographic
// quotes, Python's True/False/None, unquoted keys, comments, raw newlines
// inside strings, or a markdown fence around the whole value. Those are
// rewritten here, each repair reported by a stable name, and the rewritten
// text must then pass ParseStrictJson: the value returned is exactly what
// that strict parse produced.
//
// What is never done: closing a truncated object, array or string (cut-off
// output stays `truncated_json`), quoting a bare value or unquoting a string
// (a value's type never changes), inventing or dropping fields (duplicate
// keys stay `duplicate_key`), or choosing between two values.
//
// The rewriter is a single left-to-right pass that looks at each byte a
// bounded number of times, so its cost is linear in the input for every
// input (no backtracking, no re-scanning after a failed guess).
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_REPAIR_REPAIR_H_
#define TOOLGATE_CORE_REPAIR_REPAIR_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"

namespace toolgate {
namespace repair {

enum class RepairPolicy {
  kStrict,        // No repair at all.
  kSyntaxRepair,  // The syntax repairs below, nothing else.
};

// Stable names of the repairs, as reported to callers.
inline constexpr absl::string_view kTrailingComma = "trailing_comma";
inline constexpr absl::string_view kSingleQuotes = "single_quotes";
inline constexpr absl::string_view kPythonLiteral = "python_literal";
inline constexpr absl::string_view kSmartQuotes = "smart_quotes";
inline constexpr absl::string_view kUnquotedKey = "unquoted_key";
inline constexpr absl::string_view kComment = "comment";
inline constexpr absl::string_view kControlCharacter = "control_character";
inline constexpr absl::string_view kMarkdownFence = "markdown_fence";

struct RewriteResult {
  std::string text;
  // Distinct repair names, in the order they were first applied.
  std::vector<std::string> repairs;
  // The input ends inside a /* comment or inside a markdown fence that never
  // closes: it was cut off, and no rewrite can make it whole.
  bool cut_off = false;
};

// The syntax rewrite alone. Input that is already strict JSON comes back
// unchanged with no repairs.
RewriteResult RewriteSyntax(absl::string_view text);

// A JSON value read under a policy. Failures are values: `code` is one of
// strict_json's codes (truncated_json, invalid_json, duplicate_key, ...).
struct ParsedJson {
  bool ok() const { return code.empty(); }

  Json value;                        // Meaningful only when ok().
  std::vector<std::string> repairs;  // Empty unless repairs were needed.
  std::string code;
  std::string pointer;  // JSON Pointer where parsing failed.
  std::string message;
};

// Parses `text` strictly; under kSyntaxRepair, text that fails only as
// `invalid_json` is rewritten and parsed strictly again. Any other strict
// failure (truncated, duplicate key, too deep, too large, ...) stands.
// `limits.max_bytes` caps the input; the rewritten text may exceed it only
// by the escapes the rewrite added.
ParsedJson ParseJson(absl::string_view text, RepairPolicy policy,
                     const JsonLimits& limits = JsonLimits());

}  // namespace repair
}  // namespace toolgate

#endif  // TOOLGATE_CORE_REPAIR_REPAIR_H_
