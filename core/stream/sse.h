// Reading a recorded stream from a file: either one event per line, or a
// raw server-sent-events capture (`event:` / `data:` lines, blank lines
// between events), as curl -N or a proxy log writes it.
//
// Thread-safety: pure function.
#ifndef TOOLGATE_CORE_STREAM_SSE_H_
#define TOOLGATE_CORE_STREAM_SSE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace toolgate {
namespace stream {

// The events of `capture`. When any line starts with "data:", it is read
// as SSE (WHATWG): an event's data lines joined by "\n", other fields and
// ":" comments ignored, events without data dropped. Otherwise every
// non-blank line is one event. "\r\n" line ends are accepted.
std::vector<std::string> SplitEvents(absl::string_view capture);

}  // namespace stream
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STREAM_SSE_H_
