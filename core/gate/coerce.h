// Stage "policy (coerce)": the explicit coercions a tool's policy allows
// (policy.coerce) and the HTML stripping its `text` rules ask for,
// applied before the schema sees the arguments.
//
// Only a string at a listed pointer is coerced, and only when it is exactly
// the target type's text: integer_from_string takes -?(0|[1-9][0-9]*)
// within +-2^53 (no spaces, "+", decimals, exponents, hex, underscores or
// non-ASCII digits); boolean_from_string takes exactly "true" or "false".
// Anything else is left as it is, for the schema to refuse; a value
// already of the right type passes unchanged; nothing unlisted is ever
// coerced. Each coerced value's pointer is listed in the call's
// `coercions`, and an ALLOWed call's arguments_json holds the coerced
// values: what was validated is what runs.
//
// In the same stage, each string at a pointer of a `text` rule with
// strip_html is replaced by its text without HTML (policy::StripHtml,
// core/policy/text_checks.h), so the schema and the argument checks see
// what will run. A changed value's pointer is listed in the call's
// `sanitizations`; an unchanged one is not. A value the stripper refuses
// (past the per-output parse budget, or escaped markup) is a text_invalid
// violation and the call skips the schema: it is never passed unstripped.
//
// `as_sent` (ValidateCallRequest::forward_as_sent): the caller runs the
// arguments as sent, so nothing is rewritten: no coercion (the schema
// judges the value as it is), and markup strip_html would remove is a
// text_invalid violation instead of being removed.
//
// Takes result->calls as resolve_tools.h left them.
// Thread-safety: pure function.
#ifndef TOOLGATE_CORE_GATE_COERCE_H_
#define TOOLGATE_CORE_GATE_COERCE_H_

#include <optional>

#include "absl/strings/string_view.h"
#include "core/gate/gate_result.h"

namespace toolgate {

void CoerceArguments(GateResult* result, bool as_sent = false);

// The value `text` stands for under `coercion`, if it is exactly its text.
std::optional<Json> CoercedValue(Coercion coercion, absl::string_view text);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_GATE_COERCE_H_
