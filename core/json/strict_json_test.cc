#include "core/json/strict_json.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>

#include "core/json/utf8.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

struct BadCase {
  std::string name;
  std::string input;
  std::string code;
  std::string pointer;
};

class StrictJsonRejects : public testing::TestWithParam<BadCase> {};

TEST_P(StrictJsonRejects, WithCodeAndPointer) {
  const BadCase& c = GetParam();
  auto parsed = ParseStrictJson(c.input);
  ASSERT_FALSE(parsed.ok()) << c.input;
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(JsonErrorCode(parsed.status()), c.code) << parsed.status();
  EXPECT_EQ(JsonErrorPointer(parsed.status()), c.pointer) << parsed.status();
  EXPECT_FALSE(parsed.status().message().empty());
}

INSTANTIATE_TEST_SUITE_P(
    Table, StrictJsonRejects,
    testing::Values(
        BadCase{"empty", "", "empty_input", ""},
        BadCase{"whitespace", " \n\t ", "empty_input", ""},
        BadCase{"duplicate_top", R"({"a":1,"a":2})", "duplicate_key", "/a"},
        BadCase{"duplicate_nested", R"({"x":[1,{"b":1,"b":1}]})",
                "duplicate_key", "/x/1/b"},
        BadCase{"duplicate_escaped_key", R"({"a/b":1,"a\/b":2})",
                "duplicate_key", "/a~1b"},
        BadCase{"nan", R"({"a":NaN})", "invalid_json", "/a"},
        BadCase{"infinity", R"([Infinity])", "invalid_json", "/0"},
        BadCase{"huge_number", R"({"n":1e400})", "number_out_of_range", "/n"},
        BadCase{"huge_negative", R"([-1e999])", "number_out_of_range", "/0"},
        BadCase{"lone_high_surrogate", R"(["\ud800"])", "invalid_json", "/0"},
        BadCase{"lone_low_surrogate", R"(["\udc00x"])", "invalid_json", "/0"},
        BadCase{"invalid_utf8", "[\"\xff\"]", "invalid_json", "/0"},
        BadCase{"trailing_garbage", R"({"a":1} x)", "invalid_json", ""},
        BadCase{"two_values", R"({} {})", "invalid_json", ""},
        BadCase{"trailing_comma", R"({"a":1,})", "invalid_json", "/a"},
        BadCase{"truncated_number", R"([1e)", "truncated_json", "/0"},
        BadCase{"truncated_after_comma", R"([1,)", "truncated_json", "/1"},
        BadCase{"single_quotes", R"({'a':1})", "invalid_json", ""},
        BadCase{"truncated_object", R"({"a":1)", "truncated_json", "/a"},
        BadCase{"truncated_string", R"({"a":"hel)", "truncated_json", "/a"},
        BadCase{"truncated_literal", R"([tru)", "truncated_json", "/0"},
        BadCase{"comment", "{} // c", "invalid_json", ""}));

TEST(StrictJson, ErrorMessagesAreValidUtf8EvenWhenInputIsNot) {
  // A smart quote where JSON wants '"': nlohmann quotes the bytes it read.
  auto parsed = ParseStrictJson("{\xe2\x80\x9cname\xe2\x80\x9d:1}");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(FindInvalidUtf8(parsed.status().message()), absl::string_view::npos);
}

TEST(StrictJson, RejectsNestingBeyondLimit) {
  JsonLimits limits;
  limits.max_depth = 4;
  EXPECT_TRUE(ParseStrictJson("[[[[1]]]]", limits).ok());
  auto deep = ParseStrictJson("[[[[[1]]]]]", limits);
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(JsonErrorCode(deep.status()), "nesting_too_deep");
}

TEST(StrictJson, DefaultDepthLimitStopsHostileNesting) {
  std::string deep(100000, '[');
  auto parsed = ParseStrictJson(deep);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(JsonErrorCode(parsed.status()), "nesting_too_deep");
}

TEST(StrictJson, RejectsInputOverSizeCapBeforeParsing) {
  JsonLimits limits;
  limits.max_bytes = 10;
  auto parsed = ParseStrictJson(R"({"a":"0123456789"})", limits);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(JsonErrorCode(parsed.status()), "input_too_large");
  EXPECT_TRUE(ParseStrictJson(R"({"a":1})", limits).ok());
}

TEST(StrictJson, AcceptsValidValuesExactly) {
  auto parsed = ParseStrictJson(
      " {\"s\":\"h\\u00e9\\ud83d\\ude00\",\"i\":-42,\"u\":18446744073709551615,"
      "\"f\":2.5,\"b\":false,\"n\":null,\"a\":[1,[2]]}\r\n");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const Json& j = *parsed;
  EXPECT_EQ(j["s"], "h\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(j["i"].get<int64_t>(), -42);
  EXPECT_EQ(j["u"].get<uint64_t>(), 18446744073709551615ull);
  EXPECT_EQ(j["f"].get<double>(), 2.5);
  EXPECT_TRUE(j["n"].is_null());
  EXPECT_EQ(j["a"][1][0], 2);
}

TEST(StrictJson, CanonicalFormSortsKeysAndDropsWhitespace) {
  auto a = ParseStrictJson(R"({ "b": [1, 2.5], "a": {"z": true, "y": null} })");
  auto b = ParseStrictJson(R"({"a":{"y":null,"z":true},"b":[1,2.5]})");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(CanonicalJson(*a), R"({"a":{"y":null,"z":true},"b":[1,2.5]})");
  EXPECT_EQ(CanonicalJson(*a), CanonicalJson(*b));
}

TEST(StrictJson, NoTypeCoercionInTypeNames) {
  EXPECT_EQ(JsonTypeName(Json::parse("42")), "integer");
  EXPECT_EQ(JsonTypeName(Json::parse("42.0")), "integer");
  EXPECT_EQ(JsonTypeName(Json::parse("2.5")), "number");
  EXPECT_EQ(JsonTypeName(Json::parse("\"42\"")), "string");
  EXPECT_EQ(JsonTypeName(Json::parse("\"true\"")), "string");
}

TEST(StrictJson, TruncatedJsonKeepsUtf8Whole) {
  Json s = std::string(10, 'a') + "\xc3\xa9\xc3\xa9";
  std::string t = TruncatedJson(s, 12);
  EXPECT_EQ(t, "\"aaaaaaaaaa...");
  EXPECT_EQ(TruncatedJson(Json(1), 12), "1");
}

// A number is accepted only when the double it is read as, written in
// shortest round-trip form, is the very number the literal denotes: the value
// toolgate checks (and echoes) is exactly the value the model wrote. "" in
// `code` means accepted.
struct NumberCase {
  std::string name;
  std::string literal;
  std::string code;
  std::string message;  // A substring of the refusal, when refused.
};

void PrintTo(const NumberCase& c, std::ostream* os) { *os << c.literal; }

class StrictJsonNumbers : public testing::TestWithParam<NumberCase> {};

TEST_P(StrictJsonNumbers, AcceptsOnlyNumbersADoubleHoldsAsWritten) {
  const NumberCase& c = GetParam();
  auto parsed = ParseStrictJson("[" + c.literal + "]");
  if (c.code.empty()) {
    ASSERT_TRUE(parsed.ok()) << c.literal << ": " << parsed.status();
    EXPECT_EQ((*parsed)[0].get<double>(),
              std::strtod(c.literal.c_str(), nullptr));
    return;
  }
  ASSERT_FALSE(parsed.ok())
      << c.literal << " read as " << CanonicalJson(*parsed);
  EXPECT_EQ(JsonErrorCode(parsed.status()), c.code) << parsed.status();
  EXPECT_EQ(JsonErrorPointer(parsed.status()), "/0");
  EXPECT_NE(parsed.status().message().find(c.message), absl::string_view::npos)
      << parsed.status();
}

INSTANTIATE_TEST_SUITE_P(
    Table, StrictJsonNumbers,
    testing::Values(
        // Not exactly representable, but each is the shortest name of its
        // double, so nothing a schema can see changes.
        NumberCase{"tenth", "0.1", "", ""},
        NumberCase{"one_point_zero", "1.0", "", ""},
        NumberCase{"exponent", "1e2", "", ""},
        NumberCase{"upper_exponent_plus", "1E+2", "", ""},
        NumberCase{"trailing_zeros", "123.4500", "", ""},
        NumberCase{"sum_of_tenths", "0.30000000000000004", "", ""},
        NumberCase{"smallest_subnormal", "5e-324", "", ""},
        NumberCase{"smallest_normal", "2.2250738585072014e-308", "", ""},
        NumberCase{"largest_double", "1.7976931348623157e308", "", ""},
        NumberCase{"negative_zero", "-0.0", "", ""},
        NumberCase{"zero_huge_exponent", "0e999999", "", ""},
        NumberCase{"two_pow_53_point_zero", "9007199254740992.0", "", ""},
        NumberCase{"big_integer_shortest", "100000000000000000000", "", ""},
        NumberCase{"fifteen_digits", "0.123456789012345", "", ""},
        // Underflow: a non-zero number read as 0.
        NumberCase{"underflow", "1e-400", "number_out_of_range",
                   "would be read as 0"},
        NumberCase{"negative_underflow", "-1e-400", "number_out_of_range",
                   "would be read as 0"},
        NumberCase{"below_half_subnormal", "2.4703282292062327e-324",
                   "number_out_of_range", "would be read as 0"},
        // Overflow.
        NumberCase{"overflow", "1e400", "number_out_of_range",
                   "outside double range"},
        NumberCase{"overflow_just_above_max", "1.7976931348623159e308",
                   "number_out_of_range", "outside double range"},
        // Read as a different number: a fraction that became an integer...
        NumberCase{"fraction_becomes_integer", "9007199254740992.5",
                   "number_inexact", "read as 9.007199254740992e+15"},
        NumberCase{"odd_integer_as_float", "9007199254740993.0",
                   "number_inexact", "read as 9.007199254740992e+15"},
        // ... digits a double cannot carry ...
        NumberCase{"seventeen_digit_tenth", "0.10000000000000001",
                   "number_inexact", "read as 0.1"},
        NumberCase{"pi_21_digits", "3.14159265358979323846", "number_inexact",
                   "read as 3.141592653589793"},
        NumberCase{"integer_beyond_64_bits", "123456789012345678901234567890",
                   "number_inexact", "read as 1.2345678901234568e+29"},
        NumberCase{"two_pow_64_written_out", "18446744073709551616",
                   "number_inexact", "read as 1.8446744073709552e+19"},
        NumberCase{"below_int64", "-9223372036854775809", "number_inexact",
                   "read as -9.223372036854776e+18"},
        // ... and subnormals, which have fewer digits.
        NumberCase{"subnormal_rounded", "3e-324", "number_inexact",
                   "read as 5e-324"}),
    [](const testing::TestParamInfo<NumberCase>& info) {
      return info.param.name;
    });

TEST(StrictJsonNumbers, ExactValuesOfEdgeLiterals) {
  auto parsed = ParseStrictJson("[5e-324,1e2,1.0,-0.0,9007199254740992.0]");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ((*parsed)[0].get<double>(),
            std::numeric_limits<double>::denorm_min());
  EXPECT_EQ((*parsed)[1].get<double>(), 100.0);
  EXPECT_TRUE((*parsed)[2].is_number_float());
  EXPECT_TRUE(std::signbit((*parsed)[3].get<double>()));
  EXPECT_EQ((*parsed)[4].get<double>(), 9007199254740992.0);
}

TEST(StrictJsonNumbers, LongLiteralIsQuotedShortInTheMessage) {
  auto parsed = ParseStrictJson("1." + std::string(5000, '3'));
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(JsonErrorCode(parsed.status()), "number_inexact");
  EXPECT_LT(parsed.status().message().size(), 300u) << parsed.status();
}

// Whatever toolgate writes it must read back: the canonical form of every
// double is accepted and is the same double, bit for bit.
// Strings are written as dump() writes them, whatever their bytes: plain
// runs are copied eight bytes at a time, so runs of every length and every
// byte class next to them are tried, invalid UTF-8 included.
TEST(StrictJson, CanonicalStringsAreDumpsOnRandomBytes) {
  std::mt19937 rng(11);
  // Quote, backslash, control, DEL, a lone continuation byte, a whole
  // two-byte character, an invalid lead byte, a newline, NUL.
  const std::string specials =
      std::string("\"\\\x1f\x7f\x80\xc3\xa9\xff\n", 9) + std::string(1, '\0');
  for (int round = 0; round < 20000; ++round) {
    std::string s;
    const int pieces = static_cast<int>(rng() % 6);
    for (int i = 0; i < pieces; ++i) {
      s.append(rng() % 20, static_cast<char>('a' + rng() % 26));
      s.push_back(rng() % 2 ? specials[rng() % specials.size()]
                            : static_cast<char>(rng() % 256));
    }
    const Json value(s);
    ASSERT_EQ(CanonicalJson(value),
              value.dump(-1, ' ', false, Json::error_handler_t::replace))
        << "round " << round;
  }
}

TEST(StrictJsonNumbers, CanonicalFormOfEveryDoubleReadsBackExactly) {
  std::mt19937_64 rng(20240611);
  for (int i = 0; i < 300000; ++i) {
    const uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (!std::isfinite(d)) continue;
    const std::string text = CanonicalJson(Json(d));
    auto back = ParseStrictJson(text);
    ASSERT_TRUE(back.ok()) << text << ": " << back.status();
    ASSERT_TRUE(back->is_number_float()) << text;
    const double got = back->get<double>();
    ASSERT_EQ(std::memcmp(&got, &d, sizeof d), 0) << text;
  }
}

// The canonical form keeps nlohmann's layout (so snapshot ids stay what they
// were) but always the shortest digits; nlohmann's Grisu2 sometimes writes
// one digit too many (4.1752050594835004e+78 for 4.1752050594835e+78) or a
// last digit that is not the closest.
TEST(StrictJsonNumbers, CanonicalFormIsShortestInNlohmannLayout) {
  EXPECT_EQ(CanonicalJson(Json(4.1752050594835e+78)), "4.1752050594835e+78");
  EXPECT_EQ(CanonicalJson(Json(3.484060486691407e+210)),
            "3.484060486691407e+210");
  const std::pair<double, const char*> kLayout[] = {
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {1.0, "1.0"},
      {100.0, "100.0"},
      {0.1, "0.1"},
      {1e-4, "0.0001"},
      {1e-5, "1e-05"},
      {1.5e-7, "1.5e-07"},
      {1e14, "100000000000000.0"},
      {1e15, "1e+15"},
      {1.25e16, "1.25e+16"},
      {123456.789, "123456.789"},
      {5e-324, "5e-324"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {-2.5, "-2.5"}};
  for (const auto& [d, want] : kLayout) {
    EXPECT_EQ(CanonicalJson(Json(d)), want);
    EXPECT_EQ(Json(d).dump(), want);  // nlohmann agrees on these.
  }
  std::mt19937_64 rng(7);
  int differ = 0;
  for (int i = 0; i < 200000; ++i) {
    const uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (!std::isfinite(d)) continue;
    const std::string ours = CanonicalJson(Json(d));
    const std::string theirs = Json(d).dump();
    if (ours == theirs) continue;
    // Only where nlohmann's digits are not the shortest, or not the
    // shortest closest to the double (the one std::to_chars, Python's repr,
    // JavaScript and Ryu write): they name a different number, refused.
    ++differ;
    EXPECT_LE(ours.size(), theirs.size()) << ours << " vs " << theirs;
    auto reread = ParseStrictJson(theirs);
    ASSERT_FALSE(reread.ok()) << theirs;
    EXPECT_EQ(JsonErrorCode(reread.status()), "number_inexact");
  }
  EXPECT_LT(differ, 1000);  // ~0.1% of random doubles.
}

TEST(StrictJson, CanonicalStringsAreEscapedAsNlohmannDoes) {
  for (const std::string& s :
       {std::string("plain"), std::string("q\"b\\s/"),
        std::string("\b\f\n\r\t\x01\x1f\x7f", 8), std::string("\0x", 2),
        std::string("h\xc3\xa9\xf0\x9f\x98\x80"),
        std::string("bad \xff utf8 \xc3"), std::string()}) {
    const Json doc = {{s, s}, {"k", Json::array({s, 1, -2, 2.5, nullptr})}};
    EXPECT_EQ(CanonicalJson(doc),
              doc.dump(-1, ' ', false, Json::error_handler_t::replace));
  }
}

TEST(StrictJson, EscapesPointerTokens) {
  EXPECT_EQ(EscapePointerToken("a/b~c"), "a~1b~0c");
}

}  // namespace
}  // namespace toolgate
