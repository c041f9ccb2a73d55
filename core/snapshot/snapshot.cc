#include "core/snapshot/snapshot.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace toolgate {
namespace {

// Levenshtein distance of `a` (lower case) and `b` with b read in lower
// case, if it is at most `cutoff`, else cutoff + 1. Only a
// band of 2 * cutoff + 1 cells per row can hold a distance within the
// cutoff, and once a whole row exceeds it no later row can come back.
size_t BoundedEditDistance(absl::string_view a, absl::string_view b,
                           size_t cutoff) {
  const size_t over = cutoff + 1;
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) >
      cutoff) {
    return over;
  }
  std::vector<size_t> row(b.size() + 1, over);
  for (size_t j = 0; j <= std::min(b.size(), cutoff); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    const size_t lo = i > cutoff ? i - cutoff : 1;
    const size_t hi = std::min(b.size(), i + cutoff);
    size_t diag = row[lo - 1];
    row[lo - 1] = lo == 1 && i <= cutoff ? i : over;
    size_t row_min = row[lo - 1];
    for (size_t j = lo; j <= hi; ++j) {
      const size_t up = row[j];
      row[j] = std::min(
          {up + 1, row[j - 1] + 1,
           diag + (a[i - 1] == absl::ascii_tolower(b[j - 1]) ? 0 : 1), over});
      diag = up;
      row_min = std::min(row_min, row[j]);
    }
    if (hi < b.size()) row[hi + 1] = over;
    if (row_min > cutoff) return over;
  }
  return row[b.size()];
}

// Names are at most kMaxToolNameBytes, so the band is at most 17 wide.
constexpr size_t kMaxSuggestionDistance = 8;
// How many candidates are compared between two cancellation checks.
constexpr size_t kCandidatesPerCheck = 64;

}  // namespace

const CompiledTool* Snapshot::FindTool(absl::string_view name) const {
  auto it = std::lower_bound(tools_.begin(), tools_.end(), name,
                             [](const CompiledTool& t, absl::string_view n) {
                               return t.spec.name < n;
                             });
  return it == tools_.end() || it->spec.name != name ? nullptr : &*it;
}

std::vector<std::string> Snapshot::NearestToolNames(
    absl::string_view name, size_t max, const CancelToken* cancel) const {
  std::vector<std::string> out;
  // No tool has a longer name; comparing would be work for no hint.
  if (name.empty() || name.size() > kMaxToolNameBytes || max == 0) return out;
  const std::string lower = absl::AsciiStrToLower(name);
  const size_t cutoff =
      std::min(kMaxSuggestionDistance, std::max<size_t>(2, name.size() / 4));
  std::vector<std::pair<size_t, size_t>> scored;  // (distance, index)
  for (size_t i = 0; i < tool_names_.size(); ++i) {
    if (cancel != nullptr && i % kCandidatesPerCheck == 0 &&
        !cancel->Check().ok()) {
      break;
    }
    const size_t d = BoundedEditDistance(lower, tool_names_[i], cutoff);
    if (d <= cutoff) scored.emplace_back(d, i);
  }
  const size_t n = std::min(max, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + n, scored.end(),
                    [&](const auto& x, const auto& y) {
                      return x.first != y.first ? x.first < y.first
                                                : tool_names_[x.second] <
                                                      tool_names_[y.second];
                    });
  for (size_t i = 0; i < n; ++i) out.push_back(tool_names_[scored[i].second]);
  return out;
}

}  // namespace toolgate
