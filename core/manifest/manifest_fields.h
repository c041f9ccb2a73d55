// Internal to core/manifest: strict field access for manifest readers.
#ifndef TOOLGATE_CORE_MANIFEST_MANIFEST_FIELDS_H_
#define TOOLGATE_CORE_MANIFEST_MANIFEST_FIELDS_H_

#include <cstddef>
#include <initializer_list>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"
#include "core/manifest/manifest.h"

namespace toolgate {
namespace manifest_internal {

// Tool names that could be taken for one another are refused with this code
// at the start of the message.
inline constexpr absl::string_view kToolNameConfusable = "tool_name_confusable";

// Tool names use only ASCII letters, digits and _ - . / (OpenAI's and
// Anthropic's [a-zA-Z0-9_-] plus the separators MCP's SEP-986 allows): no
// invisible, format, bidirectional or homoglyph characters, no whitespace.
// Returns the offset of the first other byte, npos when none.
size_t FindUnsafeToolNameByte(absl::string_view name);

// `name` for a message: non-printing and non-ASCII characters as <U+XXXX>.
std::string VisibleToolName(absl::string_view name);

// Two safe names that look alike have the same key: ASCII case folded, and
// the look-alikes Unicode's confusables.txt (UTS #39) lists within the safe
// set folded too (0 as o; 1, I and so i as l; m as rn; w as vv).
std::string LookAlikeKey(absl::string_view name);

// INVALID_ARGUMENT naming the JSON Pointer (in the submitted manifest).
absl::Status Refuse(absl::string_view pointer, absl::string_view message);

// Reads typed fields of one JSON object, refusing wrong types with the
// pointer of the field and the tool it belongs to.
class FieldReader {
 public:
  FieldReader(const Json& value, std::string pointer, std::string tool)
      : value_(value), pointer_(std::move(pointer)), tool_(std::move(tool)) {}

  void set_tool(absl::string_view tool) { tool_ = std::string(tool); }

  absl::Status String(absl::string_view key, bool required, std::string* out);
  absl::Status Object(absl::string_view key, bool required, const Json** out);
  absl::Status Array(absl::string_view key, bool required, const Json** out);
  // An object or boolean JSON Schema.
  absl::Status Schema(absl::string_view key, bool required, const Json** out);
  absl::Status Bool(absl::string_view key, bool* out);
  absl::Status Int(absl::string_view key, int min, int max, int* out);
  // "name": 1 to 128 bytes, only FindUnsafeToolNameByte's safe set.
  absl::Status ToolName(std::string* out);
  // Refuses members not in `allowed` (for toolgate's own format, where a
  // misspelt policy field must not be silently ignored).
  absl::Status OnlyKeys(std::initializer_list<absl::string_view> allowed);

  absl::Status Fail(absl::string_view sub_pointer,
                    absl::string_view message) const;

 private:
  absl::Status Find(absl::string_view key, bool required,
                    const Json** out) const;

  const Json& value_;
  std::string pointer_;
  std::string tool_;
};

SideEffect SideEffectFromMcp(const Json* annotations);

absl::Status ReadToolgate(const Json& doc, Manifest* m);

}  // namespace manifest_internal
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MANIFEST_MANIFEST_FIELDS_H_
