// Internal to core/manifest: strict field access for manifest readers.
#ifndef TOOLGATE_CORE_MANIFEST_MANIFEST_FIELDS_H_
#define TOOLGATE_CORE_MANIFEST_MANIFEST_FIELDS_H_

#include <initializer_list>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"
#include "core/manifest/manifest.h"

namespace toolgate {
namespace manifest_internal {

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
  // "name": non-empty, at most 128 bytes, no whitespace or control bytes.
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
