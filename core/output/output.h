// Validation of what a tool returned, before an agent's model reads it.
//
// Field report behind this: a tool answered with an HTML maintenance page
// and HTTP 200, the model smoothed over it, and the agent wrote garbage into
// a CRM. ValidateToolOutput therefore treats every missing or odd signal as
// a failure: no status, no content type, a body that is not strict JSON, a
// schema the body drifted from, or an error dressed up as success.
//
// Checks and violation codes, in the order violations are reported:
//   unknown_tool              spec is nullptr: the tool is not in the run's
//                             snapshot (all other checks still run, except
//                             the schema)
//   http_status               not 2xx; 0 (missing) included. Tools without
//                             HTTP (MCP, stdio) pass kNoHttpStatus (-1)
//   content_type              missing, not application/json nor
//                             application/<x>+json (case-insensitive), a
//                             malformed parameter, or a charset not UTF-8
//   output_too_large          body over OutputLimits::max_body_bytes; the
//                             body is not inspected further
//   markup_body               body opens with a tag/declaration (<!doctype,
//                             <html, <?xml, <p>, ...) after whitespace/BOM
//   invalid_utf8              overlong, surrogate, > U+10FFFF, truncated or
//                             lone continuation bytes
//   invalid_json, truncated_json, empty_input, duplicate_key,
//   nesting_too_deep, number_out_of_range, number_inexact
//                             ParseStrictJson's codes and pointers
//   mcp_malformed_result      an MCP CallToolResult whose isError is not a
//                             boolean or whose content items are not objects
//                             with a string "type"
//   mcp_is_error              isError says yes at the top level (an MCP
//                             CallToolResult's must be a boolean; any
//                             other object's may also be 1 or a string
//                             such as "true"), or inside an MCP result's
//                             structuredContent
//   error_in_success_wrapper  "ok" or "success" saying yes (true, 1,
//                             "true", "yes", "ok", "success", any case),
//                             or "status" "ok"/"success", next to a
//                             non-null, non-false, non-empty "error" or
//                             "errors" at the top level of the payload
//   error_status              "status" is "error" or "fail" (any case) at
//                             the top level of the payload (JSend's
//                             failure statuses)
//   markup_in_string          a string value or key holding HTML markup as
//                             an HTML5 parser reads it: an element HTML
//                             knows, an event-handler, style or script-URL
//                             attribute on any element, a comment or a
//                             doctype (exact rules in
//                             internal/markup_scan.h; one per string;
//                             skipped when the spec allows markup). A
//                             string the parse budget in OutputLimits
//                             cannot cover counts as markup: unchecked
//   missing_structured_content  MCP result without structuredContent for a
//                             tool that declares an output schema
//   output_schema             one per schema violation (keyword, expected,
//                             received, pointer)
//   internal_error            an unexpected failure inside the validator
// The body checks stop at the first of output_too_large, markup_body,
// invalid_utf8 or a parse error: nothing after them can be trusted.
//
// All pointers are RFC 6901 pointers into the body, so schema violations of
// an MCP structuredContent are prefixed with "/structuredContent".
//
// The payload of an MCP CallToolResult (an object with a "content" array)
// is its structuredContent: that is what the output schema validates and
// what the success-wrapper check looks at.
//
// Prompt injection (text addressing the model: "ignore previous
// instructions", role markers, chat template tokens, tool-call syntax) is
// reported in `findings`, never as a violation: by itself it does not make
// an output invalid. Every string value and object key of a parsed body is
// scanned, MCP content[].text included, after invisible characters
// (zero-width, format, soft hyphen, controls) are taken out and other
// spaces and line breaks made plain (core/text/invisible_chars.h). Finding
// codes: instruction_override, role_marker, chat_template_token,
// tool_call_syntax (see internal/string_scan.h for the exact patterns).
//
// Thread-safe: ValidateToolOutput is pure; the compiled Schema it reads is
// immutable and may be shared across threads.
#ifndef TOOLGATE_CORE_OUTPUT_OUTPUT_H_
#define TOOLGATE_CORE_OUTPUT_OUTPUT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/output/verdict.h"

namespace toolgate {
namespace schema {
class Schema;
}  // namespace schema

namespace output {

// http_status of a tool that has no HTTP transport (MCP, stdio). 0 is not
// this marker: 0 is the unset wire value and means "missing".
inline constexpr int kNoHttpStatus = -1;

// stop_reason of every INVALID result.
inline constexpr absl::string_view kStopReasonInvalidToolOutput =
    "invalid_tool_output";
// safe_mode of an INVALID result in DEGRADE mode: continue read-only.
inline constexpr absl::string_view kSafeModeSkipWrites = "skip_writes";

// How the body of a known tool is to be read.
enum class ResultFormat {
  // An object with a "content" array is an MCP CallToolResult; anything
  // else is the payload itself.
  kDetect,
  // The tool speaks MCP: the body must be a CallToolResult.
  kMcp,
  // Plain JSON (HTTP tools): never read as a CallToolResult, even if it
  // happens to have a "content" array.
  kPlain,
};

// What the run's snapshot knows about the tool.
struct OutputSpec {
  // The tool's output schema (MCP outputSchema or the toolgate manifest's),
  // nullptr when it declares none. Not owned; must outlive the call.
  const schema::Schema* output_schema = nullptr;
  ResultFormat format = ResultFormat::kDetect;
  // For tools whose job is returning markup (web fetchers): skips the
  // markup_in_string check. The body itself must still be JSON.
  bool allow_markup_in_strings = false;
};

struct OutputRequest {
  absl::string_view tool_name;
  absl::string_view content_type;
  // 2xx, or kNoHttpStatus. The default (0) means missing and is refused.
  int http_status = 0;
  absl::string_view body;
  OutputMode mode = OutputMode::kUnspecified;
};

struct OutputLimits {
  size_t max_body_bytes = 1 << 20;
  int max_depth = 128;
  // Caps on what one result reports (schema violations, findings).
  size_t max_violations = 32;
  size_t max_findings = 32;
  // Bytes of context echoed in `received` and finding excerpts.
  size_t max_excerpt_bytes = 80;
  // The markup check's work per output. Only strings with a tag opener
  // ("<" then a letter, "!", "/" or "?") are parsed as HTML, and a parse
  // can take time quadratic in the number of tag openers; these cap the
  // tag openers and the bytes of such strings parsed per output. A string
  // that would go past them is markup_in_string without a parse.
  size_t max_markup_tags = 1024;
  size_t max_markup_bytes = 256 << 10;
};

struct OutputViolation {
  std::string code;            // Stable snake_case; see the list above.
  std::string pointer;         // RFC 6901 pointer into the body, "" if none.
  std::string keyword;         // Schema keyword, for output_schema.
  std::string schema_pointer;  // Pointer into the schema, for output_schema.
  std::string expected;
  std::string received;        // Truncated rendering of what was found.
  std::string message;         // One human sentence.
};

struct Finding {
  std::string code;     // instruction_override, role_marker, ...
  std::string pointer;  // The string (value or key) the text was found in.
  std::string excerpt;  // Short context around the match.
};

struct OutputResult {
  OutputVerdict verdict = OutputVerdict::kInvalid;
  std::string stop_reason;  // "invalid_tool_output" when INVALID, else "".
  std::string safe_mode;    // "skip_writes" when INVALID under kDegrade.
  std::vector<OutputViolation> violations;  // Empty iff VALID.
  std::vector<Finding> findings;
};

// Validates one tool output. `spec` is nullptr when the tool is not in the
// run's snapshot (INVALID: unknown_tool). Never throws; VALID only when
// every check ran and passed.
OutputResult ValidateToolOutput(const OutputRequest& request,
                                const OutputSpec* spec,
                                const OutputLimits& limits = OutputLimits());

}  // namespace output
}  // namespace toolgate

#endif  // TOOLGATE_CORE_OUTPUT_OUTPUT_H_
