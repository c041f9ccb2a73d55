// Members of schema objects that are no keyword of their dialect, and
// "format" values that are no format name.
//
// JSON Schema ignores unknown keywords (the official test suite requires
// it), so a misspelt "requried" or "maximun" is legal; but in a fail-closed
// tool gate it silently disables a check. The compiler keeps the specified
// behaviour and reports each such member, with the keyword it most likely
// meant, as a warning. Compile time only: the evaluator never sees this.
//
// Thread-safety: one UnknownKeywords per compilation.
#ifndef TOOLGATE_CORE_SCHEMA_INTERNAL_KEYWORDS_H_
#define TOOLGATE_CORE_SCHEMA_INTERNAL_KEYWORDS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"
#include "core/schema/schema.h"

namespace toolgate {
namespace schema {
namespace internal {

// At most this many warnings, then one "... and N more".
inline constexpr size_t kMaxKeywordWarnings = 50;

class UnknownKeywords {
 public:
  // Notes every member of the schema object `schema`, which lives at
  // `where` (Registry::Where form), that is no keyword of `dialect` with
  // the 2020-12 vocabularies `vocab` (Vocab bits).
  void Check(const Json& schema, Dialect dialect, uint32_t vocab,
             const std::string& where);

  // The warnings in the order found, bounded by kMaxKeywordWarnings.
  std::vector<std::string> Warnings() const;

 private:
  // A "format" no format name (KnownFormatNames): a misspelt "emial"
  // silently checks nothing, whether format asserts or annotates.
  void CheckFormat(const Json& schema, Dialect dialect, uint32_t vocab,
                   const std::string& where);
  bool Full(bool format);

  std::vector<std::string> warnings_;
  size_t more_ = 0;
  size_t more_formats_ = 0;
};

// The known format name closest to `name` (see KnownFormatNames), as
// "did you mean \"email\"?", or "" when none is close.
std::string FormatSuggestion(absl::string_view name);

// Edit distance with adjacent transpositions (optimal string alignment),
// ASCII case-insensitive.
size_t KeywordDistance(absl::string_view a, absl::string_view b);

}  // namespace internal
}  // namespace schema
}  // namespace toolgate

#endif  // TOOLGATE_CORE_SCHEMA_INTERNAL_KEYWORDS_H_
