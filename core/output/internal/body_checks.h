// Transport- and byte-level checks on a tool output, run before any JSON
// parsing. Internal to core/output; the public API is core/output/output.h.
//
// Thread-safe: all functions are pure.
#ifndef TOOLGATE_CORE_OUTPUT_INTERNAL_BODY_CHECKS_H_
#define TOOLGATE_CORE_OUTPUT_INTERNAL_BODY_CHECKS_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"
#include "core/json/utf8.h"

namespace toolgate {
namespace output {
namespace internal {

// "" when `http_status` is acceptable (2xx, or the explicit no-status marker
// -1); otherwise a sentence saying why not. 0 means "missing" and is refused.
std::string CheckHttpStatus(int http_status);

// "" when `content_type` declares JSON: application/json or
// application/<name>+json, case-insensitive, with optional parameters; a
// charset parameter must name UTF-8. Otherwise a sentence saying why not.
std::string CheckContentType(absl::string_view content_type);

// FindInvalidUtf8 lives in core/json/utf8.h.
using ::toolgate::FindInvalidUtf8;

// True when, after optional whitespace and UTF-8 byte-order marks, `body`
// opens a markup tag, declaration or processing instruction ("<" followed
// by a letter, "!", "?" or "/"). No JSON text can start that way, so this
// catches HTML error pages and XML whatever their content type claims.
bool LooksLikeMarkupBody(absl::string_view body);

// At most `max_bytes` bytes of `text` from `start`, never splitting a UTF-8
// sequence, with control characters shown as spaces: safe to echo back.
// Assumes `text` is valid UTF-8 (run FindInvalidUtf8 first).
std::string Excerpt(absl::string_view text, size_t start, size_t max_bytes);

// Up to `max_bytes` bytes from `start`, each as two lowercase hex digits
// separated by spaces: how invalid bytes are shown.
std::string HexBytes(absl::string_view text, size_t start, size_t max_bytes);

}  // namespace internal
}  // namespace output
}  // namespace toolgate

#endif  // TOOLGATE_CORE_OUTPUT_INTERNAL_BODY_CHECKS_H_
