#include "core/text/invisible_chars.h"

#include <string>

#include "gtest/gtest.h"

namespace toolgate {
namespace text {
namespace {

constexpr char kPhrase[] = "ignore previous instructions";

TEST(NormalizeForScan, LeavesPlainTextAlone) {
  ScanText out;
  out.text = "untouched";
  EXPECT_FALSE(NormalizeForScan(kPhrase, &out));
  EXPECT_FALSE(NormalizeForScan("tab\tand\nnewline", &out));
  EXPECT_FALSE(NormalizeForScan("Müller 東京 😀", &out));
  EXPECT_FALSE(NormalizeForScan("", &out));
  EXPECT_EQ(out.text, "untouched");
}

TEST(NormalizeForScan, RemovesReplacesAndMapsBack) {
  ScanText out;
  // "a", ZWSP, "b", NBSP, "c", CR, "d", two soft hyphens, "e".
  const std::string source =
      "a\xE2\x80\x8B"
      "b\xC2\xA0"
      "c\rd\xC2\xAD\xC2\xAD"
      "e";
  ASSERT_TRUE(NormalizeForScan(source, &out));
  EXPECT_EQ(out.text, "ab c\nde");
  const size_t expected_source[] = {0, 4, 5, 7, 8, 9, 14, 15};
  for (size_t i = 0; i <= out.text.size(); ++i) {
    EXPECT_EQ(out.SourceOffset(i), expected_source[i]) << i;
  }
}

TEST(NormalizeForScan, KeepsBytesThatAreNotUtf8) {
  ScanText out;
  ASSERT_TRUE(NormalizeForScan("\xFF\xE2\x80\x8Bx", &out));
  EXPECT_EQ(out.text, "\xFFx");
}

TEST(NormalizeForScan, WordTestStopsAtEveryNonPlainByte) {
  // An invisible character, a control byte or DEL at every offset of a
  // longer text, so that each lands in each byte of an eight-byte word;
  // tabs and line feeds around it keep the word test stepping.
  const std::string zwsp = "\xE2\x80\x8B";
  const std::string base = "abcdefgh\tijklmnopq\nrstuvwxyz0123456789ABCDEFGH";
  for (const std::string& hidden :
       {zwsp, std::string("\x7F"), std::string("\x01"), std::string("\r")}) {
    for (size_t at = 0; at <= base.size(); ++at) {
      std::string source = base;
      source.insert(at, hidden);
      ScanText out;
      ASSERT_TRUE(NormalizeForScan(source, &out)) << at;
      EXPECT_EQ(out.text,
                hidden == "\r" ? std::string(base).insert(at, "\n") : base)
          << at;
      EXPECT_EQ(out.SourceOffset(out.text.size()), source.size()) << at;
    }
  }
  ScanText out;
  EXPECT_FALSE(NormalizeForScan(base + base + "\t\n" + base, &out));
}

TEST(IsBidiControl, TheFormattingCharactersThatReorderText) {
  for (char32_t c : {0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D,
                     0x202E, 0x2066, 0x2067, 0x2068, 0x2069}) {
    EXPECT_TRUE(IsBidiControl(c)) << static_cast<uint32_t>(c);
  }
  for (char32_t c :
       {0x0041, 0x200B, 0x200D, 0x2029, 0x202F, 0x2065, 0x206A, 0xFEFF}) {
    EXPECT_FALSE(IsBidiControl(c)) << static_cast<uint32_t>(c);
  }
}

TEST(DecodeUtf8At, CodePointsAndBrokenSequences) {
  size_t len = 0;
  EXPECT_EQ(DecodeUtf8At("a", 0, &len), U'a');
  EXPECT_EQ(len, 1u);
  EXPECT_EQ(DecodeUtf8At("x\xE2\x80\xAE", 1, &len), 0x202Eu);
  EXPECT_EQ(len, 3u);
  EXPECT_EQ(DecodeUtf8At("\xF0\x9F\x98\x80", 0, &len), 0x1F600u);
  EXPECT_EQ(len, 4u);
  EXPECT_EQ(DecodeUtf8At("\xE2\x80", 0, &len), 0xFFFDu);  // Cut short.
  EXPECT_EQ(len, 1u);
  EXPECT_EQ(DecodeUtf8At("\xFFx", 0, &len), 0xFFFDu);
  EXPECT_EQ(len, 1u);
}

}  // namespace
}  // namespace text
}  // namespace toolgate
