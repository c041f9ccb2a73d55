#include "core/extract/scan_commonmark.h"

#include <algorithm>
#include <string>
#include <utility>

#include "core/text/commonmark.h"
#include "core/text/lines.h"

namespace toolgate {
namespace extract {
namespace {

// The text a CommonMark reader sees once reasoning is taken out: reasoning
// bytes become spaces (line endings stay), so offsets do not move.
std::string WithoutReasoning(absl::string_view text,
                             const Reasoning& reasoning) {
  std::string out(text);
  auto blank = [&out](size_t begin, size_t end) {
    for (size_t i = begin; i < end && i < out.size(); ++i) {
      if (!text::IsLineEndChar(out[i])) out[i] = ' ';
    }
  };
  blank(0, reasoning.prefix_end);
  for (const auto& [begin, end] : reasoning.spans) {
    blank(std::max(begin, reasoning.prefix_end), end);
  }
  return out;
}

}  // namespace

void DropFencesCommonMarkDoesNotRead(absl::string_view text,
                                     const Reasoning& reasoning,
                                     ScanResult* result) {
  std::vector<Candidate>& candidates = result->candidates;
  size_t last_fence_end = 0;
  for (const Candidate& c : candidates) {
    if (c.fence_begin != absl::string_view::npos) last_fence_end = c.fence_end;
  }
  if (last_fence_end == 0) return;
  // Block structure is read line by line, never looking ahead: the text
  // after the last fenced candidate cannot change how it was read.
  text = text.substr(0, last_fence_end);
  const bool has_reasoning =
      reasoning.prefix_end > 0 || !reasoning.spans.empty();
  const std::string blanked =
      has_reasoning ? WithoutReasoning(text, reasoning) : std::string();
  const text::BlockStructure blocks =
      text::ParseBlocks(has_reasoning ? absl::string_view(blanked) : text);
  size_t kept = 0;
  for (Candidate& c : candidates) {
    if (c.fence_begin != absl::string_view::npos &&
        !text::IsCommonMarkFence(blocks, c.fence_begin, c.fence_end)) {
      ++result->unread_blocks;
      continue;
    }
    if (&candidates[kept] != &c) candidates[kept] = std::move(c);
    ++kept;
  }
  candidates.resize(kept);
}

}  // namespace extract
}  // namespace toolgate
