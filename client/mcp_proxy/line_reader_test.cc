#include "client/mcp_proxy/line_reader.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace toolgate {
namespace mcp_proxy {
namespace {

// What a stream gives, fed in pieces of `chunk` bytes: lines, and "!" for
// each oversize report.
std::vector<std::string> Lines(const std::string& stream, size_t max,
                               size_t chunk, bool* ended_inside = nullptr) {
  LineReader reader(max);
  std::vector<std::string> out;
  for (size_t i = 0; i < stream.size(); i += chunk) {
    reader.Feed(
        absl::string_view(stream).substr(i, chunk),
        [&](absl::string_view line) { out.emplace_back(line); },
        [&] { out.emplace_back("!"); });
    EXPECT_LE(reader.buffered(), max);
  }
  const bool inside = reader.Finish();
  if (ended_inside != nullptr) *ended_inside = inside;
  return out;
}

struct Case {
  std::string stream;
  size_t max;
  std::vector<std::string> lines;
  bool ended_inside;
};

TEST(LineReader, SplitsAndBoundsLinesInAnyPieces) {
  const Case cases[] = {
      {"a\nbb\n", 10, {"a", "bb"}, false},
      {"a\r\n", 10, {"a\r"}, false},  // \r is JSON whitespace: kept.
      {"\n\n", 10, {"", ""}, false},
      {"abc", 10, {}, true},  // No newline: not a message.
      {"0123456789\n", 10, {"0123456789"}, false},  // Exactly the limit.
      {"0123456789X\nok\n", 10, {"!", "ok"}, false},
      {"0123456789XYZ", 10, {"!"}, true},
      {"short\n0123456789ABCDEF\nafter\n", 10, {"short", "!", "after"}, false},
      {"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nxxxxxxxxxxxxxxxxxxxxxx\n", 10,
       {"!", "!"}, false},
  };
  for (const Case& c : cases) {
    for (size_t chunk : {1, 2, 3, 7, 64}) {
      bool inside = false;
      EXPECT_EQ(Lines(c.stream, c.max, chunk, &inside), c.lines)
          << c.stream << " in pieces of " << chunk;
      EXPECT_EQ(inside, c.ended_inside) << c.stream;
    }
  }
}

TEST(LineReader, HoldsNothingOfAHugeLine) {
  LineReader reader(1 << 10);
  int oversize = 0;
  std::vector<std::string> lines;
  const std::string piece(64 << 10, 'x');
  for (int i = 0; i < 1600; ++i) {  // 100 MiB without a newline.
    reader.Feed(
        piece, [&](absl::string_view l) { lines.emplace_back(l); },
        [&] { ++oversize; });
    ASSERT_EQ(reader.buffered(), 0u);
  }
  reader.Feed(
      "\n{\"ok\":1}\n", [&](absl::string_view l) { lines.emplace_back(l); },
      [&] { ++oversize; });
  EXPECT_EQ(oversize, 1);
  EXPECT_EQ(lines, std::vector<std::string>{"{\"ok\":1}"});
}

}  // namespace
}  // namespace mcp_proxy
}  // namespace toolgate
