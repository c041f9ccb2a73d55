// The ListSnapshots RPC: snapshots in pages, so that a replica holding
// many large snapshots still answers within a client's receive limit.
//
// page_size 0 means kDefaultSnapshotPageSize, more than
// kMaxSnapshotPageSize is that maximum; a page also ends once its entries
// hold about `page_bytes` (it always holds at least one). The token is
// opaque to callers: it names the last snapshot of the previous page, so
// snapshots created between pages never shift or repeat the ones already
// listed. INVALID_ARGUMENT for a negative page_size or a token not from
// here.
//
// Thread-safety: as SnapshotStore.
#ifndef TOOLGATE_CORE_ENGINE_SNAPSHOT_PAGES_H_
#define TOOLGATE_CORE_ENGINE_SNAPSHOT_PAGES_H_

#include <cstddef>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/pipeline/api.h"
#include "core/snapshot/snapshot.h"

namespace toolgate {

absl::StatusOr<SnapshotPage> ListSnapshotPage(const SnapshotStore& snapshots,
                                              int page_size,
                                              absl::string_view page_token,
                                              size_t page_bytes);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_ENGINE_SNAPSHOT_PAGES_H_
