// `toolgatectl schema check`: validates JSON Lines instances on stdin
// against a JSON Schema, offline.
//
//   toolgatectl schema check --schema FILE [--dialect draft7|2020-12]
//       [--ref-dir URL_PREFIX=DIR]... [--format-assertion] [--max-errors N]
//
// Each stdin line is parsed with ParseStrictJson and answered by one JSON
// line on stdout: {"valid":true} or {"valid":false,"violations":[{"pointer",
// "schema_pointer","keyword","expected","received","message"}...]}. A line
// that is not strict JSON is invalid, with one "invalid_json" violation.
// Blank lines are skipped. --ref-dir lets $refs under URL_PREFIX load files
// from DIR (never the network; paths escaping DIR are refused).
//
// Exit status: 0 when every instance is valid; 1 when any is invalid; 2 when
// the schema is refused, usage is wrong, or stdin holds no instance at all
// (nothing validated is not "all valid").
//
// Thread-safety: no global state; concurrent calls with distinct streams
// are safe.
#ifndef TOOLGATE_CLIENT_SCHEMA_CHECK_H_
#define TOOLGATE_CLIENT_SCHEMA_CHECK_H_

#include <istream>
#include <ostream>
#include <string>
#include <vector>

namespace toolgate {
namespace client {

// `args` are the words after "toolgatectl" (a leading "schema", "check" is
// skipped if present), e.g. {"--schema", "s.json", "--format-assertion"}.
int RunSchemaCheck(const std::vector<std::string>& args, std::istream& in,
                   std::ostream& out, std::ostream& err);

}  // namespace client
}  // namespace toolgate

#endif  // TOOLGATE_CLIENT_SCHEMA_CHECK_H_
