// The CommonMark check of ScanCandidates (scan.h). Internal to
// core/extract.
#ifndef TOOLGATE_CORE_EXTRACT_SCAN_COMMONMARK_H_
#define TOOLGATE_CORE_EXTRACT_SCAN_COMMONMARK_H_

#include <cstddef>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/extract/scan.h"

namespace toolgate {
namespace extract {

// Byte ranges of reasoning: <think>...</think>, and everything up to an
// unopened </think>.
struct Reasoning {
  std::vector<std::pair<size_t, size_t>> spans;
  size_t prefix_end = 0;
};

// Drops each fenced candidate that CommonMark, reading `text` with
// `reasoning` taken out, does not read as that same code block (inside an
// HTML comment or block, inside another block toolgate's scan did not
// see, or ending elsewhere), counting it in result->unread_blocks. Its
// fence lines stay after any earlier candidate, so callers stop rather
// than fall back to that earlier one.
void DropFencesCommonMarkDoesNotRead(absl::string_view text,
                                     const Reasoning& reasoning,
                                     ScanResult* result);

}  // namespace extract
}  // namespace toolgate

#endif  // TOOLGATE_CORE_EXTRACT_SCAN_COMMONMARK_H_
