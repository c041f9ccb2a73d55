#include "core/json/strict_json.h"

#include <string>

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

TEST(StrictJson, EscapesPointerTokens) {
  EXPECT_EQ(EscapePointerToken("a/b~c"), "a~1b~0c");
}

}  // namespace
}  // namespace toolgate
