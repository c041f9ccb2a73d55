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
        PathCase{"\xe6\x9d\xb1\xe4\xba\xac/\xd8\xa7.txt", false,
                 ""},  // CJK, Arabic.
        // C1 controls are control characters too.
        PathCase{"a\xc2\x85"
                 "b",
                 false, "path_invalid"},  // NEL
        PathCase{"a\xc2\x9b"
                 "b",
                 false, "path_invalid"},  // CSI
        PathCase{"a\xc2\xa0"
                 "b",
                 false, ""},  // NBSP is not one.
        PathCase{"", false, "path_invalid"}));

// Issue 25 item 16: a bidi control shows a path as another one
// ("invoice_<U+202E>fdp.exe" reads "invoice_exe.pdf"): path_invalid,
// wherever it is.
TEST(PathBidiTest, BidiControlsAnywhereAreRefused) {
  const PathRule rule{"/srv/reports", true};
  const std::string kBidi[] = {
      "\xd8\x9c",      // U+061C ALM
      "\xe2\x80\x8e",  // U+200E LRM
      "\xe2\x80\x8f",  // U+200F RLM
      "\xe2\x80\xaa",  // U+202A LRE
      "\xe2\x80\xab",  // U+202B RLE
      "\xe2\x80\xac",  // U+202C PDF
      "\xe2\x80\xad",  // U+202D LRO
      "\xe2\x80\xae",  // U+202E RLO
      "\xe2\x81\xa6",  // U+2066 LRI
      "\xe2\x81\xa7",  // U+2067 RLI
      "\xe2\x81\xa8",  // U+2068 FSI
      "\xe2\x81\xa9",  // U+2069 PDI
  };
  for (const std::string& b : kBidi) {
    for (const std::string& value :
         {b + "invoice.pdf", "invoice_" + b + "fdp.exe", "q3/summary.pdf" + b,
          "q3" + b + "/x.txt", "/srv/reports/" + b + "x", "a/" + b + "/b",
          "r\xc3\xa9sum\xc3\xa9_" + b + "fdp.exe"}) {
      std::optional<ArgumentViolation> v = CheckPath(value, rule);
      ASSERT_TRUE(v.has_value()) << value;
      EXPECT_EQ(v->code, "path_invalid") << value;
      EXPECT_NE(v->message.find("bidirectional"), std::string::npos)
          << v->message;
      // Quoted with the control escaped: it cannot reorder the message.
      EXPECT_EQ(v->message.find(b), std::string::npos) << v->message;
      EXPECT_NE(v->message.find("\\u"), std::string::npos) << v->message;
    }
  }
  // Neighbours of the set pass: U+202F (narrow no-break space), U+2065
  // (unassigned), U+206A, U+200D (zero width joiner, in some scripts'
  // names).
  for (const std::string& ok : {"a\xe2\x80\xaf"
                                "b",
                                "a\xe2\x81\xa5"
                                "b",
                                "a\xe2\x81\xaa"
                                "b",
                                "a\xe2\x80\x8d"
                                "b"}) {
    EXPECT_FALSE(CheckPath(ok, rule).has_value()) << ok;
  }
  EXPECT_FALSE(
      ValidatePathRule(PathRule{"/srv/\xe2\x80\xaereports", false}).ok());
}

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
