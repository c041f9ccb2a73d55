// Newline-delimited framing for MCP's stdio transport, bounded.
//
// Each message is one line ending in "\n" (a "\r" before it is kept: it is
// JSON whitespace). A line longer than the limit is never held: its bytes
// are dropped as they arrive and it is reported once, when its newline
// comes (or at the first byte past the limit, whichever is first), so the
// reader holds at most the limit plus nothing of an oversize line.
//
// Thread-compatible: one reader per stream, used by one thread.
#ifndef TOOLGATE_CLIENT_MCP_PROXY_LINE_READER_H_
#define TOOLGATE_CLIENT_MCP_PROXY_LINE_READER_H_

#include <cstddef>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"

namespace toolgate {
namespace mcp_proxy {

class LineReader {
 public:
  explicit LineReader(size_t max_line_bytes) : max_(max_line_bytes) {}

  // Feeds the next bytes of the stream. `on_line` gets each complete line
  // without its "\n" (the view lives until it returns); `on_oversize` is
  // called once per line over the limit.
  void Feed(absl::string_view data,
            absl::FunctionRef<void(absl::string_view)> on_line,
            absl::FunctionRef<void()> on_oversize);

  // At the end of the stream: true when it ended inside a line (those
  // bytes are not a message and are dropped).
  bool Finish();

  size_t buffered() const { return partial_.size(); }

 private:
  const size_t max_;
  std::string partial_;
  // Inside a line already reported as oversize: dropping until "\n".
  bool discarding_ = false;
};

}  // namespace mcp_proxy
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_MCP_PROXY_LINE_READER_H_
