// Manifests the server serves by name: from --manifests DIR (each *.json
// file, named by its stem before the first dot: "tickets.openai.json" is
// "tickets"), or the embedded examples when no directory is given.
//
// Each file is read as a regular file (or a symlink to one) of at most
// --max_input_bytes: a FIFO, a device, a directory or a socket named
// *.json is refused by name (core/util/regular_file.h), never waited on or
// read without end, at start-up and on SIGHUP alike.
//
// Loaded names are owned by this loader (NameRule::kLoad): CreateSnapshot
// cannot re-point them; only a reload can.
#ifndef TOOLGATE_SERVER_MANIFESTS_H_
#define TOOLGATE_SERVER_MANIFESTS_H_

#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "core/engine/engine.h"

namespace toolgate {
namespace server {

// Start-up: the first file that does not load fails the start (a sidecar
// must not come up without a tool set its operator asked for).
absl::Status LoadManifests(Engine *engine, const std::string &dir,
                           std::ostream &log);

// SIGHUP: every file that loads re-points its name to the new snapshot;
// a file that does not load (unreadable, not a regular file, too large,
// not a manifest) keeps its name's old snapshot and the reason, naming
// the file, is logged. Open runs keep their pinned snapshots either way. Returns
// the number of files that failed.
int ReloadManifests(Engine *engine, const std::string &dir, std::ostream &log);

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_MANIFESTS_H_
