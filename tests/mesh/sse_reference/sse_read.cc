// toolgate's SSE reader (core/mesh/sse_reader.h) over bodies on stdin, for
// the differential test beside it (differential.py): each body is
// "<length>\n<bytes>"; each answer one JSON line, {"events": [...]} or
// {"refused": "..."}.
#include <iostream>
#include <iterator>
#include <string>

#include "core/json/strict_json.h"
#include "core/mesh/sse_reader.h"

int main() {
  std::ios::sync_with_stdio(false);
  size_t length = 0;
  while (std::cin >> length) {
    std::cin.get();  // The "\n" after the length.
    std::string body(length, '\0');
    if (!std::cin.read(body.data(), length)) return 1;
    auto events = toolgate::mesh::ReadSseEvents(body);
    toolgate::Json line;
    if (events.ok()) {
      line["events"] = *events;
    } else {
      line["refused"] = std::string(events.status().message());
    }
    std::cout << line.dump(-1, ' ', false,
                           toolgate::Json::error_handler_t::replace)
              << "\n";
  }
  return std::cin.eof() ? 0 : 1;
}
