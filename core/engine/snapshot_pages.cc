#include "core/engine/snapshot_pages.h"

#include <algorithm>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace toolgate {
namespace {

// A page token is the id of the last snapshot listed, behind a version tag,
// in web-safe base64: opaque to callers, stable while snapshots are added.
constexpr absl::string_view kTokenTag = "snapshots.v1:";

std::string PageToken(absl::string_view last_id) {
  return absl::WebSafeBase64Escape(absl::StrCat(kTokenTag, last_id));
}

absl::StatusOr<std::string> AfterId(absl::string_view token) {
  std::string decoded;
  if (!absl::WebSafeBase64Unescape(token, &decoded) ||
      !absl::StartsWith(decoded, kTokenTag) ||
      decoded.size() == kTokenTag.size()) {
    return absl::InvalidArgumentError(
        "page_token is not a token ListSnapshots returned; leave it empty "
        "for the first page");
  }
  return decoded.substr(kTokenTag.size());
}

// What one entry adds to a ListSnapshotsResponse, about.
size_t ListedBytes(const Snapshot& s) {
  size_t n = s.id().size() + s.name().size() + 16;
  for (const std::string& tool : s.tool_names()) n += tool.size() + 2;
  return n;
}

}  // namespace

absl::StatusOr<SnapshotPage> ListSnapshotPage(const SnapshotStore& snapshots,
                                              int page_size,
                                              absl::string_view page_token,
                                              size_t page_bytes) {
  if (page_size < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "page_size must not be negative (0: the default, ",
        kDefaultSnapshotPageSize, "; at most ", kMaxSnapshotPageSize, ")"));
  }
  const size_t size = page_size == 0
                          ? kDefaultSnapshotPageSize
                          : std::min(page_size, kMaxSnapshotPageSize);
  std::string after;
  if (!page_token.empty()) {
    absl::StatusOr<std::string> id = AfterId(page_token);
    if (!id.ok()) return id.status();
    after = *std::move(id);
  }
  // One more than the page holds says whether another page follows.
  std::vector<std::shared_ptr<const Snapshot>> found =
      snapshots.ListAfter(after, size + 1);
  SnapshotPage page;
  size_t bytes = 0;
  for (std::shared_ptr<const Snapshot>& s : found) {
    if (page.snapshots.size() == size) break;
    bytes += ListedBytes(*s);
    if (!page.snapshots.empty() && bytes > page_bytes) break;
    page.snapshots.push_back(std::move(s));
  }
  if (page.snapshots.size() < found.size()) {
    page.next_page_token = PageToken(page.snapshots.back()->id());
  }
  return page;
}

}  // namespace toolgate
