#include "core/output/injection.h"

#include <vector>

#include "core/output/internal/string_scan.h"

namespace toolgate {
namespace output {

std::optional<std::string> FindInjectionCode(absl::string_view text) {
  // FindInjections normalises with NormalizeForScan itself.
  const std::vector<internal::PatternMatch> hits =
      internal::FindInjections(text);
  if (hits.empty()) return std::nullopt;
  return std::string(hits.front().code);
}

}  // namespace output
}  // namespace toolgate
