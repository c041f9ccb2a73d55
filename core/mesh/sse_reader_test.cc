#include "core/mesh/sse_reader.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace mesh {
namespace {

using std::string_literals::operator""s;

TEST(ReadSseEvents, ReadsTheEventsEveryClientReads) {
  const struct {
    std::string body;
    std::vector<std::string> events;
  } cases[] = {
      {"data: {\"a\":1}\n\n", {"{\"a\":1}"}},
      {"event: message\r\nid: 4\r\ndata: x\r\n\r\ndata:y\r\n\r\n", {"x", "y"}},
      {"data: a\ndata: b\n\n", {"a\nb"}},
      {"data:  two spaces\n\n", {" two spaces"}},
      {"data\ndata: x\n\n", {"\nx"}},  // A field without colon: empty value.
      {": comment\n\n: another\ndata: x\n\n", {"x"}},
      {"retry: 1000\nid: a\ndata: x\n\n\n\n", {"x"}},
      {"data: caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\n\n",
       {"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"}},
      {"data: tab\there\n\n", {"tab\there"}},
      {"", {}},
      {"\n\n", {}},
      // No message in any client: skipped (a resumable server's priming).
      {"id: 1\n\nretry: 5\nevent: message\n\ndata:\n\ndata: \n\ndata: x\n\n",
       {"x"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    auto events = ReadSseEvents(c.body);
    ASSERT_TRUE(events.ok()) << events.status();
    EXPECT_EQ(*events, c.events);
  }
}

// Issue 25 item 4: bodies some common client reads otherwise.
TEST(ReadSseEvents, RefusesWhatAnyClientReadsOtherwise) {
  const struct {
    std::string body;
    const char* why;
  } cases[] = {
      // clang-format off
      // WHATWG/eventsource-parser drop the BOM and read EVIL; httpx reads GOOD.
      {"\xEF\xBB\xBF" "data: EVIL\n\ndata: GOOD\n\n", "U+FEFF"},
      {"data: GOOD\n\n\xEF\xBB\xBF" "data: EVIL\n\n", "U+FEFF"},
      {"data: {\"t\":\"a\xEF\xBB\xBF\"}\n\n", "U+FEFF"},
      // str.splitlines breaks a comment line, WHATWG does not.
      {": x\x1c" "data: EVIL\n\ndata: GOOD\n\n", "U+001C"},
      {": x\x1d" "data: EVIL\n\n", "U+001D"},
      {": x\x1e" "data: EVIL\n\n", "U+001E"},
      {": x\x0b" "data: EVIL\n\n", "U+000B"},
      {": x\x0c" "data: EVIL\n\n", "U+000C"},
      {": x\xC2\x85" "data: EVIL\n\n", "U+0085"},
      {": x\xE2\x80\xA8" "data: EVIL\n\n", "U+2028"},
      {": x\xE2\x80\xA9" "data: EVIL\n\n", "U+2029"},
      {"data: {\"t\":\"\xE2\x80\xA8\"}\n\n", "U+2028"},
      {"data: x\x00y\n\n"s, "U+0000"},
      {"id: 1\x00\ndata: x\n\n"s, "U+0000"},
      // A lone CR: a line break for some readers, not for others.
      {"data: EVIL\rdata: GOOD\n\n", "CR not followed by LF"},
      {"data: x\r\r", "CR not followed by LF"},
      {"data: x\n\n\r", "CR not followed by LF"},
      // Not UTF-8: replaced by U+FFFD, or decoded otherwise.
      {"data: \xFF\n\n", "not UTF-8"},
      {"data: \xC0\xAF\n\n", "not UTF-8"},
      {"data: \xED\xA0\x80\n\n", "not UTF-8"},
      {"data: \xE2\x80\n\n", "not UTF-8"},
      // Clients drop an event without its closing blank line.
      {"data: last", "without a line break"},
      {"data: last\n", "without its blank line"},
      {"data: x\n\ndata: last\r\n", "without its blank line"},
      // Events MCP clients do not hand on, or hand on empty.
      {"event: other\ndata: x\n\n", "other than message"},
      {"event\ndata: x\n\n", "other than message"},
      {"event:\ndata: x\n\n", "other than message"},
      {"event: message \ndata: x\n\n", "other than message"},
      // Fields no client reads: a BOM-prefixed one is the attack's form.
      {"Data: x\n\n", "a field other than"},
      {"data : x\n\n", "a field other than"},
      {" data: x\n\n", "a field other than"},
      {"foo: x\ndata: y\n\n", "a field other than"},
      // clang-format on
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    auto events = ReadSseEvents(c.body);
    ASSERT_FALSE(events.ok());
    EXPECT_EQ(events.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(events.status().message(), c.why))
        << events.status();
  }
}

}  // namespace
}  // namespace mesh
}  // namespace toolgate
