#include "core/stream/sse.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace toolgate {
namespace stream {
namespace {

std::vector<absl::string_view> Lines(absl::string_view capture) {
  std::vector<absl::string_view> lines = absl::StrSplit(capture, '\n');
  for (absl::string_view& line : lines) absl::ConsumeSuffix(&line, "\r");
  return lines;
}

std::vector<std::string> ReadSse(const std::vector<absl::string_view>& lines) {
  std::vector<std::string> events;
  std::string data;
  bool has_data = false;
  auto flush = [&] {
    if (has_data) events.push_back(std::move(data));
    data.clear();
    has_data = false;
  };
  for (absl::string_view line : lines) {
    if (line.empty()) {
      flush();
      continue;
    }
    if (!absl::ConsumePrefix(&line, "data")) continue;  // Other fields.
    if (!line.empty() && line[0] != ':') continue;      // "dataX:".
    absl::ConsumePrefix(&line, ":");
    absl::ConsumePrefix(&line, " ");  // One space after the colon, per spec.
    if (has_data) data += '\n';
    data.append(line.data(), line.size());
    has_data = true;
  }
  flush();
  return events;
}

}  // namespace

std::vector<std::string> SplitEvents(absl::string_view capture) {
  std::vector<absl::string_view> lines = Lines(capture);
  for (absl::string_view line : lines) {
    if (absl::StartsWith(line, "data:")) return ReadSse(lines);
  }
  std::vector<std::string> events;
  for (absl::string_view line : lines) {
    if (!absl::StripAsciiWhitespace(line).empty()) {
      events.emplace_back(line);
    }
  }
  return events;
}

}  // namespace stream
}  // namespace toolgate
