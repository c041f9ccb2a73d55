// Reads a file toolgate is pointed at by a flag or a directory (manifests,
// TLS certificates and keys, token files, CLI inputs): a regular file only,
// and never more than a limit.
//
// Why: a path can name a FIFO (opening it blocks until a writer comes, and
// so does reading it), a character device (/dev/urandom and /dev/zero never
// end), a directory or a socket. Reading one of those unbounded grew the
// server until the kernel killed it, or blocked the thread that handles
// signals so that SIGTERM was never acted on. Here the type is checked
// before the file is opened (opening some devices acts on them), the open
// cannot block (O_NONBLOCK), the type is checked again on what was opened,
// and at most max_bytes + 1 bytes are read, whatever size the file claims
// or grows to meanwhile.
//
// Symlinks are followed: Kubernetes mounts Secrets and ConfigMaps as
// symlinks. What they point to must be a regular file.
//
// Thread-safety: the functions keep no state.
#ifndef TOOLGATE_CORE_UTIL_REGULAR_FILE_H_
#define TOOLGATE_CORE_UTIL_REGULAR_FILE_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace toolgate {

// The whole content of `path`. Errors say why and begin with the path:
//   NOT_FOUND            "PATH: cannot read: No such file or directory"
//   PERMISSION_DENIED    "PATH: cannot read: Permission denied"
//   FAILED_PRECONDITION  "PATH: is a FIFO, not a regular file" (a directory,
//                        a socket, a character or block device alike)
//   OUT_OF_RANGE         "PATH: is larger than N bytes"
//   DATA_LOSS            "PATH: cannot read: <errno text>" (a read failed)
absl::StatusOr<std::string> ReadRegularFile(const std::string& path,
                                            size_t max_bytes);

// OK when `path` names (or links to) a regular file, else the errors
// above. For a reader that streams a file larger than memory (toolgatectl
// replay --audit): it opens the file itself afterwards.
absl::Status CheckRegularFile(const std::string& path);

}  // namespace toolgate

#endif  // TOOLGATE_CORE_UTIL_REGULAR_FILE_H_
