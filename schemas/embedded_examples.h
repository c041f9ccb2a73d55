// The example manifests in schemas/, compiled into the binary.
#ifndef TOOLGATE_SCHEMAS_EMBEDDED_EXAMPLES_H_
#define TOOLGATE_SCHEMAS_EMBEDDED_EXAMPLES_H_

#include <string>
#include <vector>

namespace toolgate {

struct EmbeddedManifest {
  const char* name;      // Snapshot name, e.g. "tickets".
  const char* file;      // Source file, e.g. "tickets.openai.json".
  const char* contents;  // The manifest JSON.
};

const std::vector<EmbeddedManifest>& EmbeddedExampleManifests();

}  // namespace toolgate

#endif  // TOOLGATE_SCHEMAS_EMBEDDED_EXAMPLES_H_
