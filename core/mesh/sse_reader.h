// Reads a text/event-stream body (an MCP tool's answer) the way every
// common SSE client reads it, or refuses it.
//
// Why: toolgate checks the events it reads; the model gets the events the
// agent's client reads. Clients disagree on some bodies: the WHATWG
// parser (and eventsource-parser, under the MCP TypeScript SDK, after
// TextDecoder) drops a leading BOM, Python's httpx keeps it (so
// "\ufeffdata: X" is an ignored field there, data X here); httpx splits
// lines like str.splitlines (\x0b, \x0c, \x1c-\x1e, \x85, U+2028, U+2029
// are line breaks there, not in the WHATWG parser); an event without its
// closing blank line is dropped by clients. Any such body is refused, so
// what toolgate reads is what every one of them reads:
//  * the body is UTF-8 without U+FEFF, without C0 controls other than tab,
//    LF and CR, without U+0085, U+2028, U+2029; every CR is followed by
//    LF; the body ends with a line break;
//  * lines are comments (":..."), blank lines, or the fields data, id,
//    retry and event; an event field says "message" (the only events MCP
//    clients hand on); any other field is refused;
//  * the last event (field lines up to a blank line) is closed by a blank
//    line.
// The data lines of an event are joined by "\n", one leading space of a
// value is dropped, exactly as in the WHATWG parser. An event without data
// or with empty data holds no message for any client (some skip it, some
// fail on it and read on) and is skipped.
//
// Thread-safety: a pure function.
#ifndef TOOLGATE_CORE_MESH_SSE_READER_H_
#define TOOLGATE_CORE_MESH_SSE_READER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace toolgate {
namespace mesh {

// The data of each event, in order; INVALID_ARGUMENT saying what was
// refused (and where) when the body is outside the subset above.
absl::StatusOr<std::vector<std::string>> ReadSseEvents(absl::string_view body);

}  // namespace mesh
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MESH_SSE_READER_H_
