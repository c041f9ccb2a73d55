// Table tests of the schema engine's helpers: format checks, ECMA-262 to
// RE2 translation, URI resolution and exact decimal multipleOf.
#include <string>
#include <vector>

#include "core/schema/internal/format.h"
#include "core/schema/internal/json_value.h"
#include "core/schema/internal/regex.h"
#include "core/schema/internal/uri.h"
#include "core/schema/schema.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace schema {
namespace internal {
namespace {

struct FormatCase {
  std::string format;
  std::string value;  // Owned: some cases are built at run time.
  bool valid;
};

TEST(FormatTest, Table) {
  const std::vector<FormatCase> cases = {
      {"date-time", "2024-02-29T12:30:00Z", true},
      {"date-time", "2024-02-29t12:30:00.123+05:30", true},
      {"date-time", "1998-12-31T23:59:60Z", true},
      {"date-time", "2023-02-29T12:30:00Z", false},  // Not a leap year.
      {"date-time", "2024-01-01 12:30:00Z", false},
      {"date-time", "2024-01-01T12:30:00", false},  // Offset required.
      {"date-time", "1998-12-31T22:59:60Z", false},  // Leap second misplaced.
      {"date", "2024-12-31", true},
      {"date", "2024-13-01", false},
      {"date", "2024-1-01", false},
      {"time", "08:30:06.283185Z", true},
      {"time", "08:30:06+24:00", false},
      {"time", "8:30:06Z", false},
      {"duration", "P1Y2M3DT4H5M6S", true},
      {"duration", "PT1H", true},
      {"duration", "P2W", true},
      {"duration", "P", false},
      {"duration", "PT", false},
      {"duration", "P1S", false},
      {"email", "joe.bloggs@example.com", true},
      {"email", "\"joe bloggs\"@example.com", true},
      {"email", "joe@[127.0.0.1]", true},
      {"email", ".joe@example.com", false},
      {"email", "joe..bloggs@example.com", false},
      {"email", "joe@", false},
      {"email", "no-at-sign", false},
      {"hostname", "www.example.com", true},
      {"hostname", "xn--4gbwdl.xn--wgbh1c", true},
      {"hostname", "-a.example.com", false},
      {"hostname", "a..b", false},
      {"hostname", std::string(64, 'a'), false},
      {"ipv4", "192.168.0.1", true},
      {"ipv4", "256.1.1.1", false},
      {"ipv4", "01.1.1.1", false},
      {"ipv4", "1.1.1", false},
      {"ipv6", "::1", true},
      {"ipv6", "2001:db8::8a2e:370:7334", true},
      {"ipv6", "::ffff:192.168.0.1", true},
      {"ipv6", "1:2:3:4:5:6:7:8", true},
      {"ipv6", "12345::", false},
      {"ipv6", "1::2::3", false},
      {"ipv6", "1:2:3:4:5:6:7", false},
      {"ipv6", ":1:2:3:4:5:6:7", false},
      {"uri", "https://example.com/a?b=c#d", true},
      {"uri", "urn:isbn:0451450523", true},
      {"uri", "//example.com/relative", false},
      {"uri", "https://exa mple.com", false},
      {"uri", "https://example.com/%zz", false},
      {"uri-reference", "../a/b", true},
      {"uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380", true},
      {"uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d1638", false},
      {"uuid", "2eb8aa08aa98-11ea-b4aa-73b441d163800", false},
      {"json-pointer", "/a~1b/0", true},
      {"json-pointer", "/a~2", false},
      {"regex", "^[a-z]+$", true},
      {"regex", "(a)\\1", false},
  };
  for (const FormatCase& c : cases) {
    const Format f = FormatFromName(c.format);
    ASSERT_NE(f, Format::kUnknown) << c.format;
    EXPECT_EQ(CheckFormat(f, c.value), c.valid) << c.format << " " << c.value;
  }
  EXPECT_EQ(FormatFromName("int32"), Format::kUnknown);
}

TEST(FormatTest, AnnotationByDefaultAssertionWhenAsked) {
  const Json schema = Json::parse(R"({"format":"email"})");
  auto annotation = Schema::Compile(schema);
  ASSERT_TRUE(annotation.ok());
  EXPECT_TRUE((*annotation)->IsValid(Json("not an email")));
  CompileOptions options;
  options.format_assertion = true;
  auto assertion = Schema::Compile(schema, options);
  ASSERT_TRUE(assertion.ok());
  EXPECT_FALSE((*assertion)->IsValid(Json("not an email")));
  EXPECT_TRUE((*assertion)->IsValid(Json("a@example.com")));
  EXPECT_TRUE((*assertion)->IsValid(Json(42)));  // Format applies to strings.
}

TEST(RegexTest, TranslationTable) {
  struct Case {
    const char* ecma;
    const char* subject;
    bool matches;
  };
  for (const Case& c : std::vector<Case>{
           {"^\\d+$", "123", true},
           {"^\\d+$", "\xd9\xa3", false},  // Arabic-Indic digit: not \d.
           {"^\\s$", "\xc2\xa0", true},    // NBSP is ECMA whitespace.
           {"^\\S$", "\xc2\xa0", false},
           {"^.$", "\n", false},
           {"^.$", "\xe2\x80\xa8", false},  // U+2028 is a line terminator.
           {"^\\u00e9$", "\xc3\xa9", true},
           {"^\\ud83d\\ude00$", "\xf0\x9f\x98\x80", true},
           {"^\\p{Letter}+$", "\xc3\xa9t\xc3\xa9", true},
           {"^\\cJ$", "\n", true},
           {"^[^]$", "\n", true},
           {"^[]$", "a", false},
           {"^(?<word>[a-z]+)$", "abc", true},
           {"a", "xxaxx", true},  // Unanchored, as ECMA test() is.
       }) {
    auto re = CompileEcmaRegex(c.ecma, "/pattern");
    ASSERT_TRUE(re.ok()) << c.ecma << ": " << re.status();
    EXPECT_EQ(RE2::PartialMatch(c.subject, **re), c.matches) << c.ecma;
  }
}

TEST(RegexTest, RefusesWhatRe2CannotRun) {
  for (const char* p : {"(a)\\1", "\\k<x>", "a(?=b)", "a(?!b)", "(?<=a)b",
                        "(?<!a)b", "a{1001}", "[a", "\\"}) {
    auto re = CompileEcmaRegex(p, "/properties/x/pattern");
    ASSERT_FALSE(re.ok()) << p;
    EXPECT_THAT(std::string(re.status().message()),
                ::testing::HasSubstr("/properties/x/pattern"));
  }
}

TEST(RegexTest, IdenticalPatternsShareOneRe2UntilTheLastUserGoes) {
  const size_t before = InternedRegexCount();
  auto a = Schema::Compile(Json::parse(
      R"({"properties":{"id":{"pattern":"^INT-[0-9]{7}$"}}})"));
  auto b = Schema::Compile(Json::parse(
      R"({"patternProperties":{"^INT-[0-9]{7}$":{"type":"integer"}},
          "items":{"pattern":"^INT-[0-9]{7}$"}})"));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(InternedRegexCount(), before + 1);
  EXPECT_TRUE((*b)->IsValid(Json::parse(R"(["INT-1234567"])")));
  EXPECT_FALSE((*a)->IsValid(Json::parse(R"({"id":"INT-12"})")));
  // Three users share it: each schema counts a third of it.
  auto alone =
      Schema::Compile(Json::parse(R"({"pattern":"^UNIQUE-[0-9]{7}$"})"));
  auto shared = Schema::Compile(Json::parse(R"({"pattern":"^INT-[0-9]{7}$"})"));
  ASSERT_TRUE(alone.ok() && shared.ok());
  EXPECT_LT((*shared)->compiled_bytes(), (*alone)->compiled_bytes());
  a->reset();
  b->reset();
  shared->reset();
  EXPECT_EQ(InternedRegexCount(), before + 1);  // Only ^UNIQUE- is left.
}

TEST(UriTest, ResolutionTable) {
  struct Case {
    const char* base;
    const char* ref;
    const char* out;
  };
  for (const Case& c : std::vector<Case>{
           {"http://a/b/c/d;p?q", "g", "http://a/b/c/g"},
           {"http://a/b/c/d;p?q", "../g", "http://a/b/g"},
           {"http://a/b/c/d;p?q", "/g", "http://a/g"},
           {"http://a/b/c/d;p?q", "#s", "http://a/b/c/d;p?q#s"},
           {"http://a/b/c/d;p?q", "../../../g", "http://a/g"},
           {"http://a/b/c/d;p?q", "g/", "http://a/b/c/g/"},
           {"http://localhost:1234/draft2020-12/", "baseUriChange/",
            "http://localhost:1234/draft2020-12/baseUriChange/"},
           {"urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed", "#/$defs/bar",
            "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed#/$defs/bar"},
           {"urn:toolgate:root", "https://x/y.json#a", "https://x/y.json#a"},
       }) {
    EXPECT_EQ(ResolveUri(c.base, c.ref), c.out) << c.base << " + " << c.ref;
  }
  EXPECT_EQ(PercentDecode("percent%25field"), "percent%field");
}

TEST(DecimalTest, MultipleOfIsExactOnWrittenDecimals) {
  struct Case {
    const char* value;
    const char* divisor;
    bool multiple;
  };
  for (const Case& c : std::vector<Case>{
           {"0.0075", "0.0001", true},
           {"0.00751", "0.0001", false},
           {"19.99", "0.01", true},
           {"4.5", "1.5", true},
           {"35", "1.5", false},
           {"1e308", "0.123456789", false},
           {"12391239123", "1e-8", true},
           {"0.3", "0.1", true},
           {"-7", "3.5", true},
           {"18446744073709551615", "5", true},
           {"0", "0.7", true},
       }) {
    const Json v = Json::parse(c.value), d = Json::parse(c.divisor);
    EXPECT_EQ(IsMultipleOf(ToDecimal(v), ToDecimal(d)), c.multiple)
        << c.value << " multipleOf " << c.divisor;
  }
}

TEST(JsonValueTest, EqualityAndOrderAgreeAcrossNumberStorage) {
  const std::vector<std::pair<const char*, const char*>> equal = {
      {"1", "1.0"}, {"-0.0", "0"}, {"[1,{\"a\":2.0}]", "[1.0,{\"a\":2}]"}};
  for (const auto& [a, b] : equal) {
    const Json x = Json::parse(a), y = Json::parse(b);
    EXPECT_TRUE(JsonEqual(x, y)) << a << " vs " << b;
    EXPECT_EQ(JsonCompare(x, y), 0) << a << " vs " << b;
  }
  EXPECT_FALSE(JsonEqual(Json::parse("1"), Json::parse("true")));
  EXPECT_FALSE(JsonEqual(Json::parse("[1]"), Json::parse("[1,1]")));
  EXPECT_LT(JsonCompare(Json::parse("[1]"), Json::parse("[1,1]")), 0);
  EXPECT_GT(JsonCompare(Json::parse("{\"b\":1}"), Json::parse("{\"a\":1}")), 0);
  EXPECT_LT(JsonCompare(Json::parse("null"), Json::parse("false")), 0);
  Json big = Json::array();
  for (int i = 0; i < 10000; ++i) big.push_back(i);
  size_t i = 0, j = 0;
  EXPECT_FALSE(FindDuplicate(big, &i, &j));
  big.push_back(1234.0);
  ASSERT_TRUE(FindDuplicate(big, &i, &j));
  EXPECT_EQ(i, 1234u);
  EXPECT_EQ(j, 10000u);
}

}  // namespace
}  // namespace internal
}  // namespace schema
}  // namespace toolgate
