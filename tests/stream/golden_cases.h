// The golden streams under tests/stream/golden, read for tests: each case's
// events and what toolgate must make of them against the golden manifest.
#ifndef TOOLGATE_TESTS_STREAM_GOLDEN_CASES_H_
#define TOOLGATE_TESTS_STREAM_GOLDEN_CASES_H_

#include <ostream>
#include <string>
#include <vector>

#include "core/engine/engine.h"
#include "core/stream/assembler.h"
#include "nlohmann/json.hpp"

namespace toolgate {
namespace testutil {

struct GoldenStream {
  std::string name;  // "openai_chat/single_call".
  std::string path;  // The .sse or .jsonl file.
  stream::Format format;
  std::vector<std::string> events;
  // {"assembly": {"error": CODE} | {"text": ..., "calls": [{"id"?, "name",
  //  "arguments"}]}, "decision": "ALLOW", "codes": [...]}.
  nlohmann::json expected;
};

// Every case, in name order; a missing or unreadable file fails the test
// that calls it (an empty list is an error too).
std::vector<GoldenStream> LoadGoldenStreams();

// tests/stream/golden/manifest.openai.json.
std::string GoldenManifest();

// An engine holding GoldenManifest() as a snapshot; Decide validates a
// request against it (a failed RPC is a test failure and a REJECT).
class GoldenEngine {
 public:
  GoldenEngine();
  ValidateCallResponse Decide(ValidateCallRequest request);

 private:
  Engine engine_;
  std::string snapshot_id_;
};

inline std::ostream& operator<<(std::ostream& os, const GoldenStream& c) {
  return os << c.name;
}

}  // namespace testutil
}  // namespace toolgate

#endif  // TOOLGATE_TESTS_STREAM_GOLDEN_CASES_H_
