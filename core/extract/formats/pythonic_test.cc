// The pythonic grammar: literals that map exactly (including the escapes
// Python has and JSON has not), expressions and other spellings refused
// with their codes, and the call list's own syntax.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/extract/formats/formats.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace extract {
namespace {

ExtractionResult Read(const std::string& text) {
  return ReadDeclaredFormat(text, TextFormat::kPythonic);
}

struct Literal {
  std::string python;
  std::string json;  // Canonical.
};

class LiteralTest : public testing::TestWithParam<Literal> {};

TEST_P(LiteralTest, MapsExactly) {
  const Literal& c = GetParam();
  const ExtractionResult r = Read(absl::StrCat("[f(v=", c.python, ")]"));
  ASSERT_TRUE(r.ok()) << c.python << ": " << r.error.code << " "
                      << r.error.message;
  EXPECT_EQ(CanonicalJson(r.calls[0].arguments.at("v")), c.json) << c.python;
}

INSTANTIATE_TEST_SUITE_P(
    Pythonic, LiteralTest,
    testing::ValuesIn(std::vector<Literal>{
        {"0", "0"},
        {"00", "0"},
        {"-0", "0"},
        {"+7", "7"},
        {"- 7", "-7"},
        {"-\n 7", "-7"},
        {"42", "42"},
        {"18446744073709551615", "18446744073709551615"},
        {"-9223372036854775808", "-9223372036854775808"},
        {"1.5", "1.5"},
        {"1.", "1.0"},
        {".5", "0.5"},
        {"-.5", "-0.5"},
        {"007.5", "7.5"},
        {"1e5", "100000.0"},
        {"1E+05", "100000.0"},
        {"1.e-3", "0.001"},
        {"0e0", "0.0"},
        {"-0.0", "-0.0"},
        {"0.30000000000000004", "0.30000000000000004"},
        {"True", "true"},
        {"False", "false"},
        {"None", "null"},
        {"'x'", R"("x")"},
        {"\"x\"", R"("x")"},
        {"u'x'", R"("x")"},
        {"U\"x\"", R"("x")"},
        {"''", R"("")"},
        {"'it\\'s'", R"("it's")"},
        {"\"say \\\"hi\\\"\"", R"("say \"hi\"")"},
        {"'\"'", R"("\"")"},
        {"\"'\"", R"("'")"},
        {"'\\a\\b\\f\\n\\r\\t\\v\\\\'", R"("\u0007\b\f\n\r\t\u000b\\")"},
        {"'\\0'", R"("\u0000")"},
        {"'\\101\\7'", R"("A\u0007")"},
        {"'\\777'", "\"\xC7\xBF\""},
        {"'\\x41\\xe9'", "\"A\xC3\xA9\""},
        {"'\\u00e9\\u4e2d'", "\"\xC3\xA9\xE4\xB8\xAD\""},
        {"'\\U0001F600'", "\"\xF0\x9F\x98\x80\""},
        {"'a\\\nb'", R"("ab")"},
        {"'''a\nb'''", R"("a\nb")"},
        {"\"\"\"it's \"quoted\" \"\"\"", R"("it's \"quoted\" ")"},
        {"'''a''b'''", R"("a''b")"},
        {"'tab\there'", R"("tab\there")"},
        {"'\x01'", R"("\u0001")"},
        {"'caf\xC3\xA9'", "\"caf\xC3\xA9\""},
        {"'</tool_call> </s> [TOOL_CALL'", R"("</tool_call> </s> [TOOL_CALL")"},
        {"[]", "[]"},
        {"[1, 'a', None,]", R"([1,"a",null])"},
        {"()", "[]"},
        {"(1,)", "[1]"},
        {"(1, 2)", "[1,2]"},
        {"(1)", "1"},
        {"((1, 2))", "[1,2]"},
        {"(-1)", "-1"},
        {"([1])", "[1]"},
        {"{}", "{}"},
        {"{'b': 1, \"a\": [2, {'c': ()}],}", R"({"a":[2,{"c":[]}],"b":1})"},
        {"{'': 0}", R"({"":0})"},
        {"[\n  1,\n  2\n]", "[1,2]"},
    }));

struct Refused {
  std::string python;  // The value of an argument.
  std::string code;
};

class RefusedTest : public testing::TestWithParam<Refused> {};

TEST_P(RefusedTest, RefusedWithItsCode) {
  const Refused& c = GetParam();
  const ExtractionResult r = Read(absl::StrCat("[f(v=", c.python, ")]"));
  EXPECT_FALSE(r.ok()) << c.python;
  EXPECT_TRUE(r.calls.empty());
  EXPECT_EQ(r.error.code, c.code) << c.python << ": " << r.error.message;
  EXPECT_EQ(r.error.call_index, 0) << c.python;
  EXPECT_EQ(r.error.pointer.rfind("/0/arguments", 0), 0u) << r.error.pointer;
}

INSTANTIATE_TEST_SUITE_P(
    Expressions, RefusedTest,
    testing::ValuesIn(std::vector<Refused>{
        {"__import__('os')", "malformed_tool_call"},
        {"__import__('os').system('rm -rf /')", "malformed_tool_call"},
        {"1+1", "malformed_tool_call"},
        {"1 + 1", "malformed_tool_call"},
        {"2*3", "malformed_tool_call"},
        {"'a' + 'b'", "malformed_tool_call"},
        {"x", "malformed_tool_call"},
        {"os.environ", "malformed_tool_call"},
        {"open('/etc/passwd').read()", "malformed_tool_call"},
        {"[1][0]", "malformed_tool_call"},
        {"{}.keys()", "malformed_tool_call"},
        {"'a'.join(['b'])", "malformed_tool_call"},
        {"[i for i in range(3)]", "malformed_tool_call"},
        {"{k: 1 for k in 'ab'}", "malformed_tool_call"},
        {"lambda: 0", "malformed_tool_call"},
        {"not True", "malformed_tool_call"},
        {"1 if True else 2", "malformed_tool_call"},
        {"--1", "malformed_tool_call"},
        {"-True", "malformed_tool_call"},
        {"-'a'", "malformed_tool_call"},
        {"-(1)", "malformed_tool_call"},
        {"*[1]", "malformed_tool_call"},
        {"[*[1]]", "malformed_tool_call"},
        {"{**{}}", "malformed_tool_call"},
        {"...", "malformed_tool_call"},
        {"(1)(2)", "malformed_tool_call"},
        {"f(1)", "malformed_tool_call"},
        {"True.real", "malformed_tool_call"},
        {"1.5.3", "malformed_tool_call"},
        {"1e", "malformed_tool_call"},
        {"01", "malformed_tool_call"},
        {"1L", "malformed_tool_call"},
        {"(,)", "malformed_tool_call"},
        {"[1 2]", "malformed_tool_call"},
        {"{'a' 1}", "malformed_tool_call"},
        {"{'a': 1, 'b'}", "malformed_tool_call"},
        {"'a\nb'", "malformed_tool_call"},
        {"'\\x4'", "malformed_tool_call"},
        {"'\\u12'", "malformed_tool_call"},
        {"'\\U00110000'", "malformed_tool_call"},
        {"'a\\0b'.upper()", "malformed_tool_call"},
        {"0x1F", "unsupported_syntax"},
        {"0o17", "unsupported_syntax"},
        {"0b101", "unsupported_syntax"},
        {"1_000", "unsupported_syntax"},
        {"1.0_1", "unsupported_syntax"},
        {"1j", "unsupported_syntax"},
        {"2.5J", "unsupported_syntax"},
        {"b'bytes'", "unsupported_syntax"},
        {"r'raw'", "unsupported_syntax"},
        {"f'{x}'", "unsupported_syntax"},
        {"Rb'x'", "unsupported_syntax"},
        {"{1, 2}", "unsupported_syntax"},
        {"{'a'}", "unsupported_syntax"},
        {"{1: 2}", "unsupported_syntax"},
        {"{(1,): 2}", "unsupported_syntax"},
        {"'a' 'b'", "unsupported_syntax"},
        {"'a' u'b'", "unsupported_syntax"},
        {"'\\N{BULLET}'", "unsupported_syntax"},
        {"'\\d'", "unsupported_syntax"},
        {"'\\ud83d\\ude00'", "unsupported_syntax"},
        {"'\\U0000DFFF'", "unsupported_syntax"},
        {"'a\rb'", "unsupported_syntax"},
        {"1 # comment", "unsupported_syntax"},
        {"[1, \\\n 2]", "unsupported_syntax"},
        {"18446744073709551616", "number_out_of_range"},
        {"-9223372036854775809", "number_out_of_range"},
        {"1e400", "number_out_of_range"},
        {"1e-400", "number_out_of_range"},
        {"0.10000000000000001", "number_inexact"},
        {"9007199254740993.0", "number_inexact"},
        {"{'a': 1, 'a': 2}", "duplicate_key"},
        {"{'a': 1, \"a\": 2}", "duplicate_key"},
        {std::string(101, '[') + std::string(101, ']'), "nesting_too_deep"},
        {std::string(99, '(') + "1" + std::string(99, ')'), "nesting_too_deep"},
    }));

struct Case {
  std::string text;
  std::string code;  // Empty: read.
};

class CallListTest : public testing::TestWithParam<Case> {};

TEST_P(CallListTest, ReadOrRefused) {
  const Case& c = GetParam();
  const ExtractionResult r = Read(c.text);
  EXPECT_EQ(r.error.code, c.code) << c.text << ": " << r.error.message;
}

INSTANTIATE_TEST_SUITE_P(
    Calls, CallListTest,
    testing::ValuesIn(std::vector<Case>{
        {"[f()]", ""},
        {"[f(),]", ""},
        {"[f(a=1,)]", ""},
        {"[ f ( a = 1 ) , g ( ) ]", ""},
        {"[pkg.sub.f(a=1)]", ""},
        {"[pkg . f()]", ""},
        {"\n [f()] \n", ""},
        {"<|python_start|>[f(a=1)]<|python_end|>", ""},
        {"<|python_start|>[f(a=1)]", "truncated_output"},
        {"<|python_start|>[f(a=1)] done", "malformed_tool_call"},
        {"[]", "no_tool_call"},
        {"I will call [f()]", "no_tool_call"},
        {"[f(1)]", "malformed_tool_call"},
        {"[f(x)]", "malformed_tool_call"},
        {"[f(a=1, 2)]", "malformed_tool_call"},
        {"[f(*args)]", "malformed_tool_call"},
        {"[f(**kw)]", "malformed_tool_call"},
        {"[f(a==1)]", "malformed_tool_call"},
        {"[f(a=1, a=2)]", "duplicate_key"},
        {"[f(class=1)]", "malformed_tool_call"},
        {"[f(True=1)]", "malformed_tool_call"},
        {"[f(__debug__=1)]", "malformed_tool_call"},
        {"[import()]", "malformed_tool_call"},
        {"[pkg.class()]", "malformed_tool_call"},
        {"[1]", "malformed_tool_call"},
        {"['f']", "malformed_tool_call"},
        {"[f]", "malformed_tool_call"},
        {"[f.g]", "malformed_tool_call"},
        {"[f()()]", "malformed_tool_call"},
        {"[f().g()]", "malformed_tool_call"},
        {"[f()[0]]", "malformed_tool_call"},
        {"[f(),,g()]", "malformed_tool_call"},
        {"[,]", "malformed_tool_call"},
        {"(f(),)", "no_tool_call"},
        {"f()", "no_tool_call"},
        {"[f(a=1)] + [g()]", "malformed_tool_call"},
        {"[f(a=1)]\nimport os", "malformed_tool_call"},
        {"[f(a=1)];[g()]", "malformed_tool_call"},
        {"[f(\xEF\xBD\x81=1)]", "unsupported_syntax"},
        {"[\xEF\xBD\x86()]", "unsupported_syntax"},
        {"[f\xC3\xA9()]", "unsupported_syntax"},
        {"[f(a=1)] # done", "malformed_tool_call"},
        {"[", "truncated_output"},
        {"[f", "truncated_output"},
        {"[f(", "truncated_output"},
        {"[f(a", "truncated_output"},
        {"[f(a=", "truncated_output"},
        {"[f(a='x", "truncated_output"},
        {"[f(a='''x''", "truncated_output"},
        {"[f(a=[1,", "truncated_output"},
        {"[f(a=1)", "truncated_output"},
        {"[f(a=1),", "truncated_output"},
        {"[f(a=-", "truncated_output"},
        {"[f(a='\\", "truncated_output"},
        {"[f(a='\\x4", "truncated_output"},
        {"[f(a=1e", "truncated_output"},
        {"[pkg.", "truncated_output"},
    }));

}  // namespace
}  // namespace extract
}  // namespace toolgate
