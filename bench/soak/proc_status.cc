#include "bench/soak/proc_status.h"

#include <dirent.h>

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace toolgate {
namespace soak {
namespace {

// "VmRSS:\t  123456 kB" -> 123456. `unit` is "kB" or "" (Threads).
absl::StatusOr<int64_t> Field(absl::string_view status, absl::string_view key,
                              absl::string_view unit) {
  for (absl::string_view line : absl::StrSplit(status, '\n')) {
    if (!absl::ConsumePrefix(&line, key) || !absl::ConsumePrefix(&line, ":")) {
      continue;
    }
    line = absl::StripAsciiWhitespace(line);
    if (!unit.empty() && !absl::ConsumeSuffix(&line, unit)) {
      return absl::InvalidArgumentError(
          absl::StrCat(key, " is not in ", unit, ": \"", line, "\""));
    }
    int64_t value = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &value) ||
        value < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(key, " is not a count: \"", line, "\""));
    }
    return value;
  }
  return absl::NotFoundError(absl::StrCat("no ", key, " line"));
}

int64_t CountFds(int pid) {
  DIR* dir = opendir(absl::StrCat("/proc/", pid, "/fd").c_str());
  if (dir == nullptr) return -1;
  int64_t n = 0;
  while (const dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n;
}

}  // namespace

absl::StatusOr<ProcSample> ParseProcStatus(absl::string_view status) {
  ProcSample sample;
  auto rss = Field(status, "VmRSS", "kB");
  if (!rss.ok()) return rss.status();
  auto threads = Field(status, "Threads", "");
  if (!threads.ok()) return threads.status();
  sample.rss_kb = *rss;
  sample.threads = *threads;
  return sample;
}

absl::StatusOr<ProcSample> SampleProcess(int pid) {
  const std::string path = absl::StrCat("/proc/", pid, "/status");
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  auto sample = ParseProcStatus(text.str());
  if (!sample.ok()) {
    return absl::Status(sample.status().code(),
                        absl::StrCat(path, ": ", sample.status().message()));
  }
  sample->open_fds = CountFds(pid);
  return sample;
}

}  // namespace soak
}  // namespace toolgate
