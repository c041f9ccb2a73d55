// Bounding strings that echo caller input (audit lines, messages).
//
// Thread-safety: pure functions.
#ifndef TOOLGATE_CORE_UTIL_TRUNCATE_H_
#define TOOLGATE_CORE_UTIL_TRUNCATE_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace toolgate {

// Marks a cut: appended to every truncated string.
inline constexpr absl::string_view kTruncationMark = "...";

// `text` unchanged when it has at most `max_bytes` bytes; otherwise its
// first `max_bytes` bytes or fewer (never splitting a UTF-8 sequence)
// followed by kTruncationMark.
std::string TruncateText(absl::string_view text, size_t max_bytes);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_UTIL_TRUNCATE_H_
