// Writing calls in a declared format's syntax: what the repair prompt shows
// a model (its family's syntax), and what the differential tests render
// and read back.
//
// RenderCalls writes exactly what ReadDeclaredFormat reads back as the
// same calls (names, arguments, Mistral ids), or refuses calls the format
// cannot express: in pythonic, a name that is not a dotted ASCII
// identifier or an argument name that is not an identifier (Python
// keywords included); in DeepSeek V3, a name with white space or control
// characters; in Mistral, an id that is not nine ASCII letters and
// digits.
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_EXTRACT_FORMATS_RENDER_H_
#define TOOLGATE_CORE_EXTRACT_FORMATS_RENDER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/extract/text_format.h"
#include "core/json/strict_json.h"

namespace toolgate {
namespace extract {

struct CallToRender {
  std::string name;
  Json arguments;  // An object.
  std::string id;  // Mistral only; may be empty.
};

// INVALID_ARGUMENT for calls the format cannot express, or a format that
// is not declared.
absl::StatusOr<std::string> RenderCalls(TextFormat format,
                                        const std::vector<CallToRender>& calls);

// `value` as a Python literal that the pythonic grammar reads back as
// exactly `value` (strings in single quotes, non-ASCII as is).
std::string RenderPythonLiteral(const Json& value);

// One call to `tool` in `format`'s syntax with its arguments left as a
// placeholder ("{...}", or "name=value, ..." in pythonic), for the repair
// prompt. Empty for a format that is not declared.
std::string SyntaxExample(TextFormat format, absl::string_view tool);

}  // namespace extract
}  // namespace toolgate

#endif  // TOOLGATE_CORE_EXTRACT_FORMATS_RENDER_H_
