#include <optional>
#include <string>

#include "core/policy/argument_checks.h"
#include "gtest/gtest.h"

namespace toolgate::policy {
namespace {

struct Case {
  std::string value;
  std::string code;  // Empty: passes.
};

class ShellArgTest : public ::testing::TestWithParam<Case> {};

TEST_P(ShellArgTest, Decides) {
  const Case& c = GetParam();
  std::optional<ArgumentViolation> v = CheckShellArg(c.value);
  if (c.code.empty()) {
    EXPECT_FALSE(v.has_value()) << c.value << ": " << v->message;
  } else {
    ASSERT_TRUE(v.has_value()) << c.value;
    EXPECT_EQ(v->code, c.code) << c.value;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, ShellArgTest,
    ::testing::Values(
        Case{"report-2024.txt", ""}, Case{"a_b.c", ""}, Case{"dir/file", ""},
        Case{"user@example.org", ""}, Case{"k=v", ""}, Case{"a+b,c:d", ""},
        Case{"50%", ""}, Case{"x-", ""}, Case{"-rf", "option_injection"},
        Case{"--help", "option_injection"}, Case{"-", "option_injection"},
        Case{"--output=/etc/x", "option_injection"},
        Case{"a;rm -rf /", "shell_metacharacter"},
        Case{"a|b", "shell_metacharacter"}, Case{"a&b", "shell_metacharacter"},
        Case{"$(id)", "shell_metacharacter"},
        Case{"`id`", "shell_metacharacter"},
        Case{"${HOME}", "shell_metacharacter"},
        Case{"a>b", "shell_metacharacter"}, Case{"a<b", "shell_metacharacter"},
        Case{"(a)", "shell_metacharacter"}, Case{"a b", "shell_metacharacter"},
        Case{"a\tb", "shell_metacharacter"},
        Case{"a\nb", "shell_metacharacter"}, Case{"'a'", "shell_metacharacter"},
        Case{"\"a\"", "shell_metacharacter"},
        Case{"*.txt", "shell_metacharacter"}, Case{"a?", "shell_metacharacter"},
        Case{"[ab]", "shell_metacharacter"},
        Case{"{a,b}", "shell_metacharacter"}, Case{"~", "shell_metacharacter"},
        Case{"~/x", "shell_metacharacter"}, Case{"a\\b", "shell_metacharacter"},
        Case{"!!", "shell_metacharacter"}, Case{"#x", "shell_metacharacter"},
        Case{"=ls", "shell_metacharacter"},
        Case{std::string("a\0b", 3), "shell_metacharacter"},
        Case{"a\xc2\xa0"
             "b",
             "shell_metacharacter"},  // NBSP.
        Case{"", "shell_metacharacter"},
        // Issue 25 item 16: '@' (a response file: gcc, javac, argparse's
        // fromfile_prefix_chars, curl -d) and '+' (set +x, date +FMT,
        // vim +CMD) lead into an option too; inside a word they are data.
        Case{"@file", "option_injection"}, Case{"@", "option_injection"},
        Case{"@/etc/passwd", "option_injection"},
        Case{"@@x", "option_injection"}, Case{"+x", "option_injection"},
        Case{"+%s", "option_injection"}, Case{"+", "option_injection"},
        Case{"++x", "option_injection"}, Case{"+-x", "option_injection"},
        Case{"-@x", "option_injection"}, Case{"a@b", ""}, Case{"a+b", ""},
        Case{"x@", ""}, Case{"c++", ""}, Case{"./@file", ""}, Case{"./+x", ""},
        // Whatever stands before '@' or '+' to hide it is refused itself.
        Case{" @file", "shell_metacharacter"},
        Case{"\t@file", "shell_metacharacter"},
        Case{"'@file'", "shell_metacharacter"},
        Case{"\"@file\"", "shell_metacharacter"},
        Case{"\xe2\x80\x8b@file", "shell_metacharacter"},  // U+200B
        Case{"\xef\xbc\xa0"
             "file",
             "shell_metacharacter"},  // Fullwidth @
        Case{"\xe2\x80\xae"
             "x",
             "shell_metacharacter"},  // U+202E
        Case{"=@file", "shell_metacharacter"}));

TEST(ShellArgTest, TheMessageNamesTheLeadingCharacter) {
  for (const char* value : {"-rf", "+x", "@args.txt"}) {
    std::optional<ArgumentViolation> v = CheckShellArg(value);
    ASSERT_TRUE(v.has_value()) << value;
    EXPECT_NE(v->message.find(std::string("starts with '") + value[0] + "'"),
              std::string::npos)
        << v->message;
    EXPECT_NE(v->message.find("./"), std::string::npos) << v->message;
  }
}

TEST(IdentifierTest, FullMatchOnly) {
  absl::StatusOr<IdentifierRule> rule =
      IdentifierRule::Compile("[a-z]{2}-[0-9]{4}");
  ASSERT_TRUE(rule.ok()) << rule.status();
  const struct {
    std::string value;
    bool pass;
  } kCases[] = {
      {"ab-1234", true},         {"ab-12345", false},
      {"xab-1234", false},       {"ab-1234\n", false},
      {"AB-1234", false},        {"", false},
      {"ab-1234 OR 1=1", false}, {std::string("ab-1234\0", 8), false},
  };
  for (const auto& c : kCases) {
    std::optional<ArgumentViolation> v = CheckIdentifier(c.value, *rule);
    EXPECT_EQ(!v.has_value(), c.pass) << c.value;
    if (v) {
      EXPECT_EQ(v->code, "identifier_invalid");
      EXPECT_NE(v->message.find("[a-z]{2}-[0-9]{4}"), std::string::npos);
    }
  }
}

TEST(IdentifierTest, AlternationIsAnchoredAsAWhole) {
  absl::StatusOr<IdentifierRule> rule =
      IdentifierRule::Compile("cus_[0-9]+|acct");
  ASSERT_TRUE(rule.ok());
  EXPECT_FALSE(CheckIdentifier("cus_42", *rule).has_value());
  EXPECT_FALSE(CheckIdentifier("acct", *rule).has_value());
  EXPECT_TRUE(CheckIdentifier("cus_42acct", *rule).has_value());
  EXPECT_TRUE(CheckIdentifier("xacct", *rule).has_value());
}

TEST(IdentifierTest, IllFormedUtf8NeverMatchesADot) {
  absl::StatusOr<IdentifierRule> rule = IdentifierRule::Compile(".+");
  ASSERT_TRUE(rule.ok());
  EXPECT_FALSE(CheckIdentifier("h\xc3\xa9", *rule).has_value());
  EXPECT_TRUE(CheckIdentifier("h\xff", *rule).has_value());
}

TEST(IdentifierTest, BadPatternsAreInvalidArgument) {
  for (const char* p : {"", "(", "[a-", "a{2,1}", "(?<n>a)\\1"}) {
    absl::StatusOr<IdentifierRule> rule = IdentifierRule::Compile(p);
    EXPECT_EQ(rule.status().code(), absl::StatusCode::kInvalidArgument) << p;
  }
  EXPECT_EQ(IdentifierRule::Compile(std::string(5000, 'a')).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(IdentifierTest, CopiesShareTheCompiledRegex) {
  absl::StatusOr<IdentifierRule> rule = IdentifierRule::Compile("[0-9]+");
  ASSERT_TRUE(rule.ok());
  IdentifierRule copy = *rule;
  EXPECT_EQ(&copy.regex(), &rule->regex());
  EXPECT_FALSE(CheckIdentifier("12", copy).has_value());
}

}  // namespace
}  // namespace toolgate::policy
