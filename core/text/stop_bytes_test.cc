#include "core/text/stop_bytes.h"

#include <random>
#include <string>

#include "gtest/gtest.h"

namespace toolgate {
namespace text {
namespace {

// The definition Find must agree with.
template <size_t N>
size_t FindByteByByte(const StopBytes<N>& stops, absl::string_view text,
                      size_t pos) {
  while (pos < text.size() && !stops.Contains(text[pos])) ++pos;
  return pos;
}

struct FindCase {
  const char* name;
  std::string text;
  size_t pos;
  size_t want;
};

TEST(StopBytes, FindsTheFirstStopAtOrAfterPos) {
  constexpr auto stops = MakeStopBytes("\n\r<");
  const FindCase cases[] = {
      {"empty", "", 0, 0},
      {"none_short", "abc", 0, 3},
      {"none_long", std::string(40, 'x'), 0, 40},
      {"at_pos", "<abc", 0, 0},
      {"in_first_word", "abc<defghijk", 0, 3},
      {"in_second_word", "abcdefgh\rjk", 0, 8},
      {"in_the_tail", std::string(17, 'a') + "\n", 0, 17},
      {"after_pos", "<bcdefgh<", 1, 8},
      {"pos_at_end", "abc", 3, 3},
      // 0x80 and 0xFF bytes set the high bits the word test looks at.
      {"high_bytes", "\x80\xff\x80\xff\x80\xff\x80\xff\x80<", 0, 9},
      {"byte_just_above_a_stop", "=====;;;;;;;;;;;;\x0b\x0e<", 0, 19},
  };
  for (const FindCase& c : cases) {
    EXPECT_EQ(stops.Find(c.text, c.pos), c.want) << c.name;
  }
}

TEST(StopBytes, AgreesWithByteByByteOnRandomText) {
  constexpr auto stops = MakeStopBytes("\n\r<{[");
  std::mt19937 rng(7);
  // Mostly plain bytes, sometimes a stop byte or a byte next to one.
  const std::string alphabet = "ab \t\x80\xff;=\x0c\x0e\x7b\x5b\n\r<z{[";
  for (int round = 0; round < 20000; ++round) {
    std::string text(rng() % 40, ' ');
    for (char& ch : text) {
      ch = rng() % 4 == 0 ? alphabet[rng() % alphabet.size()]
                          : static_cast<char>(rng() % 256);
    }
    const size_t pos = text.empty() ? 0 : rng() % (text.size() + 1);
    ASSERT_EQ(stops.Find(text, pos), FindByteByByte(stops, text, pos))
        << "round " << round;
  }
}

TEST(StopBytes, OneByte) {
  constexpr auto stops = MakeStopBytes("|");
  EXPECT_TRUE(stops.Contains('|'));
  EXPECT_FALSE(stops.Contains('a'));
  EXPECT_EQ(stops.Find("aaaaaaaaaaaaaaaaaaaa|", 0), 20u);
  EXPECT_EQ(stops.Find("aaaaaaaaaaaaaaaaaaaa", 3), 20u);
}

}  // namespace
}  // namespace text
}  // namespace toolgate
