// The output gate's prompt-injection detector, for callers outside
// core/output (the `text` argument kind of policy.arguments). The patterns
// and their codes are those of ValidateToolOutput's findings
// (internal/string_scan.h): instruction_override, role_marker,
// chat_template_token, tool_call_syntax.
//
// Thread-safe: pure function; the compiled patterns are immutable.
#ifndef TOOLGATE_CORE_OUTPUT_INJECTION_H_
#define TOOLGATE_CORE_OUTPUT_INJECTION_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace toolgate {
namespace output {

// The code of the first injection pattern `text` holds once invisible
// characters are taken out and odd spaces made plain (a zero-width space
// inside "ignore" still reads as "ignore" to a model), or nullopt.
std::optional<std::string> FindInjectionCode(absl::string_view text);

}  // namespace output
}  // namespace toolgate

#endif  // TOOLGATE_CORE_OUTPUT_INJECTION_H_
