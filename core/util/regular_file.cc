#include "core/util/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace toolgate {
namespace {

const char* KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "something else";
}

absl::Status NotRegular(const std::string& path, mode_t mode) {
  return absl::FailedPreconditionError(
      absl::StrCat(path, ": is ", KindOf(mode), ", not a regular file"));
}

absl::Status TooLarge(const std::string& path, size_t max_bytes) {
  return absl::OutOfRangeError(
      absl::StrCat(path, ": is larger than ", max_bytes, " bytes"));
}

absl::Status CannotRead(const std::string& path, int error) {
  const std::string why = absl::StrCat(path, ": cannot read: ",
                                       std::strerror(error));
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(why);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(why);
    default:
      return absl::DataLossError(why);
  }
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  const int fd_;
};

// Reads to the end of `fd`, or until more than max_bytes came.
absl::StatusOr<std::string> ReadBounded(const std::string& path, int fd,
                                        size_t max_bytes, size_t size_hint) {
  std::string out;
  out.reserve(std::min(size_hint, max_bytes) + 1);
  char buffer[64 * 1024];
  while (out.size() <= max_bytes) {
    const size_t want = std::min(sizeof(buffer), max_bytes + 1 - out.size());
    const ssize_t n = read(fd, buffer, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return CannotRead(path, errno);
    if (n == 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  if (out.size() > max_bytes) return TooLarge(path, max_bytes);
  return out;
}

}  // namespace

absl::Status CheckRegularFile(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return CannotRead(path, errno);
  if (!S_ISREG(st.st_mode)) return NotRegular(path, st.st_mode);
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadRegularFile(const std::string& path,
                                            size_t max_bytes) {
  // Before open: opening a device may act on it (a tape rewinds, a
  // watchdog arms), and opening a FIFO would wait for a writer.
  if (absl::Status s = CheckRegularFile(path); !s.ok()) return s;
  const Fd fd(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) return CannotRead(path, errno);
  // Again on what was opened: the path may have been replaced meanwhile.
  struct stat st;
  if (fstat(fd.get(), &st) != 0) return CannotRead(path, errno);
  if (!S_ISREG(st.st_mode)) return NotRegular(path, st.st_mode);
  const size_t size = static_cast<size_t>(st.st_size);
  if (size > max_bytes) return TooLarge(path, max_bytes);
  return ReadBounded(path, fd.get(), max_bytes, size);
}

}  // namespace toolgate
