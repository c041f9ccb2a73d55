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

std::string Utf8(char32_t c) {
  std::string s;
  if (c < 0x80) {
    s += static_cast<char>(c);
  } else if (c < 0x800) {
    s += static_cast<char>(0xC0 | (c >> 6));
    s += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    s += static_cast<char>(0xE0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (c >> 18));
    s += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
  }
  return s;
}

// The header's sets, written out again as the specification: what each
// code point becomes between two letters.
std::string Expected(char32_t c) {
  struct Range {
    char32_t first, last;
  };
  static constexpr Range kRemoved[] = {
      {0x0000, 0x0008},   {0x000E, 0x001F},   {0x007F, 0x0084},
      {0x0086, 0x009F},   {0x00AD, 0x00AD},   {0x034F, 0x034F},
      {0x0600, 0x0605},   {0x061C, 0x061C},   {0x06DD, 0x06DD},
      {0x070F, 0x070F},   {0x0890, 0x0891},   {0x08E2, 0x08E2},
      {0x115F, 0x1160},   {0x17B4, 0x17B5},   {0x180B, 0x180F},
      {0x200B, 0x200F},   {0x202A, 0x202E},   {0x2060, 0x206F},
      {0x3164, 0x3164},   {0xFE00, 0xFE0F},   {0xFEFF, 0xFEFF},
      {0xFFA0, 0xFFA0},   {0xFFF0, 0xFFFB},   {0x110BD, 0x110BD},
      {0x110CD, 0x110CD}, {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3},
      {0x1D173, 0x1D17A}, {0xE0000, 0xE0FFF},
  };
  for (char32_t nl : {0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029}) {
    if (c == nl) return "a\nb";
  }
  for (char32_t sp : {0x00A0, 0x1680, 0x202F, 0x205F, 0x2800, 0x3000}) {
    if (c == sp) return "a b";
  }
  if (c >= 0x2000 && c <= 0x200A) return "a b";
  for (const Range& r : kRemoved) {
    if (c >= r.first && c <= r.last) return "ab";
  }
  return "a" + Utf8(c) + "b";
}

// Every code point, so that the byte-level fast paths (the word test,
// the table of lead bytes) can skip none that the sets hold.
TEST(NormalizeForScan, EveryCodePointAsSpecified) {
  size_t changed = 0;
  for (char32_t c = 0; c <= 0x10FFFF; ++c) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;  // Surrogates: not UTF-8.
    const std::string source = "a" + Utf8(c) + "b";
    ScanText out;
    const bool normalized = NormalizeForScan(source, &out);
    const std::string got = normalized ? out.text : source;
    ASSERT_EQ(got, Expected(c)) << std::hex << static_cast<uint32_t>(c);
    ASSERT_EQ(normalized, got != source)
        << std::hex << static_cast<uint32_t>(c);
    changed += normalized;
  }
  EXPECT_EQ(changed, 4288u);  // The sets' sizes, summed.
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
