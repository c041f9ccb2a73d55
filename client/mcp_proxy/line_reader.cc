#include "client/mcp_proxy/line_reader.h"

#include <cstring>

namespace toolgate {
namespace mcp_proxy {

void LineReader::Feed(absl::string_view data,
                      absl::FunctionRef<void(absl::string_view)> on_line,
                      absl::FunctionRef<void()> on_oversize) {
  while (!data.empty()) {
    const void* found = std::memchr(data.data(), '\n', data.size());
    const size_t end = found == nullptr
                           ? data.size()
                           : static_cast<const char*>(found) - data.data();
    const absl::string_view piece = data.substr(0, end);
    if (discarding_) {
      // Already reported; its remaining bytes are skipped.
    } else if (partial_.size() + piece.size() > max_) {
      partial_.clear();
      partial_.shrink_to_fit();
      discarding_ = true;
      on_oversize();
    } else if (found != nullptr && partial_.empty()) {
      on_line(piece);  // The common case: no copy.
    } else {
      partial_.append(piece.data(), piece.size());
      if (found != nullptr) {
        on_line(partial_);
        partial_.clear();
      }
    }
    if (found == nullptr) return;
    discarding_ = false;
    data.remove_prefix(end + 1);
  }
}

bool LineReader::Finish() {
  const bool inside = discarding_ || !partial_.empty();
  partial_.clear();
  discarding_ = false;
  return inside;
}

}  // namespace mcp_proxy
}  // namespace toolgate
