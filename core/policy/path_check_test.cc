#include <optional>
#include <string>

#include "core/policy/argument_checks.h"
#include "gtest/gtest.h"

namespace toolgate::policy {
namespace {

struct PathCase {
  std::string value;
  bool allow_absolute;
  std::string code;  // Empty: passes.
};

class PathTest : public ::testing::TestWithParam<PathCase> {};

TEST_P(PathTest, Decides) {
  const PathCase& c = GetParam();
  const PathRule rule{"/srv/reports", c.allow_absolute};
  ASSERT_TRUE(ValidatePathRule(rule).ok());
  std::optional<ArgumentViolation> v = CheckPath(c.value, rule);
  if (c.code.empty()) {
    EXPECT_FALSE(v.has_value())
        << c.value << " -> " << v->code << ": " << v->message;
  } else {
    ASSERT_TRUE(v.has_value()) << c.value;
    EXPECT_EQ(v->code, c.code) << c.value << ": " << v->message;
    EXPECT_FALSE(v->message.empty());
  }
}

// Each attack next to its benign neighbour.
INSTANTIATE_TEST_SUITE_P(
    Table, PathTest,
    ::testing::Values(
        // Escapes with '..' / the same shape staying inside.
        PathCase{"../../etc/shadow", false, "path_outside_root"},
        PathCase{"a/b/../c.txt", false, ""},
        PathCase{"..", false, "path_outside_root"},
        PathCase{"..hidden", false, ""},
        PathCase{"a/../../x", false, "path_outside_root"},
        PathCase{"a/..", false, ""}, PathCase{".", false, ""},
        PathCase{"./a/./b", false, ""},
        // Leaving and coming back is refused: symlinks may intervene.
        PathCase{"../reports/x.txt", false, "path_outside_root"},
        PathCase{"dir/sub/", false, ""}, PathCase{"dir//file", false, ""},
        PathCase{"...", false, ""}, PathCase{"a/.../b", false, ""},
        // Absolute paths.
        PathCase{"/etc/passwd", false, "path_invalid"},
        PathCase{"/srv/reports/x.txt", false, "path_invalid"},
        PathCase{"/srv/reports/x.txt", true, ""},
        PathCase{"/srv/reports", true, ""}, PathCase{"/srv/reports/", true, ""},
        PathCase{"/srv/reportsX/x.txt", true, "path_outside_root"},
        PathCase{"/srv/report", true, "path_outside_root"},
        PathCase{"/srv", true, "path_outside_root"},
        PathCase{"/etc/passwd", true, "path_outside_root"},
        PathCase{"/srv/reports/../secrets/k", true, "path_outside_root"},
        PathCase{"/srv/reports/a/../b", true, ""},
        PathCase{"/srv/x/../reports/a", true, ""},
        PathCase{"/../srv/reports/a", true, "path_outside_root"},
        PathCase{"//srv//reports//a", true, ""},
        PathCase{"reportsX/a", false, ""},
        // Home directory.
        PathCase{"~/.ssh/id_rsa", false, "path_invalid"},
        PathCase{"~root", false, "path_invalid"},
        PathCase{"backup~", false, ""}, PathCase{"a/~b", false, ""},
        // Backslashes and encodings.
        PathCase{"..\\..\\windows", false, "path_invalid"},
        PathCase{"a/b.txt", false, ""},
        PathCase{"%2e%2e/etc/passwd", false, "path_invalid"},
        PathCase{"a%2Fb", false, "path_invalid"},
        PathCase{"a%00", false, "path_invalid"},
        PathCase{"100%.txt", false, ""}, PathCase{"50%off", false, ""},
        PathCase{"x%2", false, ""},
        // Control characters.
        PathCase{std::string("a\0b", 3), false, "path_invalid"},
        PathCase{"a\nb", false, "path_invalid"},
        PathCase{"a\tb", false, "path_invalid"},
        PathCase{"a\x7f", false, "path_invalid"},
        PathCase{"a b.txt", false, ""},
        PathCase{"r\xc3\xa9sum\xc3\xa9.pdf", false, ""},
        PathCase{"", false, "path_invalid"}));

TEST(PathRootTest, RootSlashAllowsEverythingInsideButNotAbove) {
  const PathRule rule{"/", true};
  ASSERT_TRUE(ValidatePathRule(rule).ok());
  EXPECT_FALSE(CheckPath("/etc/hosts", rule).has_value());
  EXPECT_FALSE(CheckPath("etc/hosts", rule).has_value());
  ASSERT_TRUE(CheckPath("../etc", rule).has_value());
  EXPECT_EQ(CheckPath("../etc", rule)->code, "path_outside_root");
}

TEST(PathRootTest, TrailingSlashOnRootIsTheSameRoot) {
  const PathRule rule{"/srv/reports/", true};
  ASSERT_TRUE(ValidatePathRule(rule).ok());
  EXPECT_FALSE(CheckPath("/srv/reports/a", rule).has_value());
  EXPECT_TRUE(CheckPath("/srv/reportsX", rule).has_value());
}

TEST(PathRootTest, InvalidRootsAreRefusedAtLoadAndFailClosed) {
  for (const char* root : {"", "srv/reports", "/srv/../etc", "/srv/./x", "~/x",
                           "/srv\\x", "/srv/%2e", "/a\nb"}) {
    const PathRule rule{root, false};
    absl::Status s = ValidatePathRule(rule);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << root;
    EXPECT_NE(s.message().find("root"), absl::string_view::npos) << root;
    std::optional<ArgumentViolation> v = CheckPath("a.txt", rule);
    ASSERT_TRUE(v.has_value()) << root;
    EXPECT_EQ(v->code, "path_invalid");
  }
}

TEST(PathMessageTest, EchoesAtMostABoundedPrefix) {
  const std::string long_value = "../" + std::string(10000, 'a');
  std::optional<ArgumentViolation> v =
      CheckPath(long_value, PathRule{"/srv", false});
  ASSERT_TRUE(v.has_value());
  EXPECT_LT(v->message.size(), 400u);
  EXPECT_NE(v->message.find("/srv"), std::string::npos);
}

TEST(PathMessageTest, ControlBytesAreEscapedInTheMessage) {
  std::optional<ArgumentViolation> v =
      CheckPath(std::string("a\0\n\xff", 4), PathRule{"/srv", false});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->message.find('\0'), std::string::npos);
  EXPECT_EQ(v->message.find('\n'), std::string::npos);
  EXPECT_NE(v->message.find("\\x00"), std::string::npos) << v->message;
}

}  // namespace
}  // namespace toolgate::policy
