// The server's memory, threads and open files, read from /proc/<pid>.
#ifndef TOOLGATE_BENCH_SOAK_PROC_STATUS_H_
#define TOOLGATE_BENCH_SOAK_PROC_STATUS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace toolgate {
namespace soak {

struct ProcSample {
  int64_t rss_kb = 0;     // VmRSS.
  int64_t threads = 0;    // Threads.
  int64_t open_fds = -1;  // Entries of /proc/<pid>/fd; -1 if unreadable.
};

// Reads VmRSS and Threads from the text of /proc/<pid>/status. A missing
// or malformed field is NOT_FOUND / INVALID_ARGUMENT: a soak that cannot
// see the server's memory must not report that it stayed flat.
absl::StatusOr<ProcSample> ParseProcStatus(absl::string_view status);

// ParseProcStatus of /proc/<pid>/status plus the open descriptor count.
// NOT_FOUND when the process is gone.
absl::StatusOr<ProcSample> SampleProcess(int pid);

}  // namespace soak
}  // namespace toolgate

#endif  // TOOLGATE_BENCH_SOAK_PROC_STATUS_H_
