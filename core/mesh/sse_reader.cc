#include "core/mesh/sse_reader.h"

#include <cstdint>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "core/json/utf8.h"

namespace toolgate {
namespace mesh {
namespace {

absl::Status Refuse(absl::string_view what, size_t offset) {
  return absl::InvalidArgumentError(
      absl::StrCat("event stream refused: ", what, " at byte ", offset));
}

// The code point of a well-formed sequence of `len` bytes.
uint32_t CodePoint(const unsigned char* p, size_t len) {
  static constexpr unsigned char kLead[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  uint32_t c = p[0] & kLead[len];
  for (size_t k = 1; k < len; ++k) c = (c << 6) | (p[k] & 0x3F);
  return c;
}

// The characters some client reads as a line break, or drops, where
// another does not (see the header).
absl::Status CheckCharacters(absl::string_view body) {
  const char* const begin = body.data();
  const char* const end = begin + body.size();
  for (const char* p = begin; p < end;) {
    const auto b = static_cast<unsigned char>(*p);
    const size_t at = p - begin;
    if (b < 0x80) {
      if (b == '\r' && (p + 1 == end || p[1] != '\n')) {
        return Refuse("a CR not followed by LF", at);
      }
      if (b < 0x20 && b != '\t' && b != '\n' && b != '\r') {
        return Refuse(absl::StrFormat("control character U+%04X", b), at);
      }
      ++p;
      continue;
    }
    const size_t len = Utf8SequenceLength(p, end);
    if (len == 0) return Refuse("a byte that is not UTF-8", at);
    const uint32_t c =
        CodePoint(reinterpret_cast<const unsigned char*>(p), len);
    if (c == 0x85 || c == 0x2028 || c == 0x2029 || c == 0xFEFF) {
      return Refuse(absl::StrFormat("U+%04X", c), at);
    }
    p += len;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ReadSseEvents(absl::string_view body) {
  if (absl::Status s = CheckCharacters(body); !s.ok()) return s;
  if (!body.empty() && body.back() != '\n') {
    return Refuse("a last line without a line break", body.size());
  }
  std::vector<std::string> events;
  std::string data;
  bool has_fields = false;  // Since the last blank line.
  bool has_data = false;
  size_t offset = 0;
  while (offset < body.size()) {
    const size_t start = offset;
    const size_t newline = body.find('\n', offset);  // Found: see above.
    absl::string_view line = body.substr(start, newline - start);
    offset = newline + 1;
    absl::ConsumeSuffix(&line, "\r");
    if (line.empty()) {
      // No data, or empty data: no message in any client (some skip the
      // event, some fail on it and read on).
      if (!data.empty()) events.push_back(std::move(data));
      data.clear();
      has_fields = has_data = false;
      continue;
    }
    if (line[0] == ':') continue;  // A comment.
    const size_t colon = line.find(':');
    const absl::string_view field = line.substr(0, colon);
    absl::string_view value =
        colon == absl::string_view::npos ? "" : line.substr(colon + 1);
    absl::ConsumePrefix(&value, " ");
    has_fields = true;
    if (field == "data") {
      if (has_data) data.push_back('\n');
      data.append(value.data(), value.size());
      has_data = true;
    } else if (field == "event") {
      if (value != "message") {
        return Refuse("an event type other than message", start);
      }
    } else if (field != "id" && field != "retry") {
      return Refuse("a field other than data, event, id and retry", start);
    }
  }
  if (has_fields) {
    return Refuse("a last event without its blank line", body.size());
  }
  return events;
}

}  // namespace mesh
}  // namespace toolgate
