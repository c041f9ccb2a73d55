// Member names and invisible characters in the credential and leak scans
// (issue 25 item 2), as a model's call meets them: a name is scanned as a
// value is, at the member's pointer; a token or protected text split by
// invisible characters is still found; argument rules stay on values.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/gate/argument_policy_testutil.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

using ::testing::ElementsAre;
using testing_tools::Codes;
using testing_tools::Gate;

// Issue 25 item 2: a member name is scanned as a value is, at the
// member's pointer, and the message never quotes it.
TEST(SecretsTest, AMemberNameIsScannedAsAValueIs) {
  const std::string key = absl::StrCat("AK", "IAIOSFODNN7EXAMPLE");
  struct Case {
    Json arguments;
    std::string pointer;
  };
  const Case kCases[] = {
      {Json{{"headers", {{key, "x"}}}}, "/headers/" + key},
      {Json{{key, 1}}, "/" + key},
      {Json{{"a", {{"b", {{"c", {{key, nullptr}}}}}}}}, "/a/b/c/" + key},
      {Json{{"items", Json::array({Json{{"ok", "1"}}, Json{{key, true}}})}},
       "/items/1/" + key},
      {Json{{"m", Json::array({Json::array({Json{{"deploy " + key, {}}}})})}},
       "/m/0/0/deploy " + key},
      // JSON Pointer escaping of the name: ~ is ~0, / is ~1.
      {Json{{"h", {{"x/y~z " + key, "v"}}}}, "/h/x~1y~0z " + key},
  };
  for (const Case& c : kCases) {
    GateResult r = Gate({{"notify", c.arguments.dump()}});
    EXPECT_EQ(r.decision, Decision::kReject) << c.arguments.dump();
    ASSERT_THAT(Codes(r), ElementsAre("argument_secret")) << c.arguments.dump();
    EXPECT_EQ(r.violations[0].pointer, c.pointer);
    EXPECT_EQ(r.violations[0].message.find(key), std::string::npos);
    EXPECT_EQ(r.violations[0].message.find("IOSFODNN"), std::string::npos);
    EXPECT_TRUE(r.violations[0].received.empty());
    EXPECT_NE(r.violations[0].message.find("member name"), std::string::npos)
        << r.violations[0].message;
  }
  // A name and its value, both secrets: two findings at one pointer.
  GateResult both = Gate({{"notify", Json{{"h", {{key, key}}}}.dump()}});
  EXPECT_THAT(Codes(both), ElementsAre("argument_secret", "argument_secret"));
  // A read tool may hold them, in names as in values; ordinary names pass.
  EXPECT_EQ(Gate({{"lookup", Json{{"h", {{key, "x"}}}}.dump()}}).decision,
            Decision::kAllow);
  EXPECT_EQ(
      Gate({{"notify", R"({"headers":{"Authorization":"x","AKIA":"y"}})"}})
          .decision,
      Decision::kAllow);
}

// Every format the scanner knows, as a member name, bare and split by
// invisible characters.
TEST(SecretsTest, EveryFormatInAMemberNameEvenSplitByInvisibles) {
  const std::string formats[] = {
      "-----BEGIN OPENSSH PRIVATE KEY-----",
      absl::StrCat("AK", "IAIOSFODNN7EXAMPLE"),
      absl::StrCat("AS", "IAY34FZKBOKMUTVV7A"),
      absl::StrCat("AI", "za", std::string(35, 'k')),
      absl::StrCat("AccountKey=", std::string(44, 'Q')),
      absl::StrCat("SharedAccessKey=", std::string(44, 'Q')),
      absl::StrCat("gh", "p_", std::string(36, '7')),
      absl::StrCat("github", "_pat_", std::string(60, 'z')),
      absl::StrCat("xo", "xb-", "1234567890-abcdef"),
      absl::StrCat("s", "k-proj-", "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xYz0AbCd"),
      absl::StrCat("s", "k_live_", std::string(24, 'x')),
      "Bearer abc123def456ghi789jkl0mno",
      absl::StrCat("eyJhbGciOiJIUzI1NiJ9", ".", "eyJzdWIiOiIxMjM0NTY3ODkwIn0",
                   ".", "sig"),
  };
  const std::string invisibles[] = {"\xE2\x80\x8B", "\xE2\x81\xA0",
                                    "\xEF\xBB\xBF", "\xC2\xAD",
                                    "\xE2\x80\x8E", "\xE2\x80\xAE"};
  for (const std::string& token : formats) {
    for (const std::string& name :
         {token, token.substr(0, 5) + invisibles[0] + token.substr(5),
          token.substr(0, 3) + invisibles[1] + invisibles[2] +
              token.substr(3, 6) + invisibles[3] + invisibles[4] +
              token.substr(9, 4) + invisibles[5] + token.substr(13)}) {
      GateResult r = Gate({{"notify", Json{{"h", {{name, "v"}}}}.dump()}});
      EXPECT_THAT(Codes(r), ElementsAre("argument_secret")) << name;
      if (!r.violations.empty()) {
        EXPECT_EQ(r.violations[0].pointer, "/h/" + name);
      }
    }
  }
}

// A value split by invisible characters is still scanned whole.
TEST(SecretsTest, AValueSplitByInvisiblesIsStillAToken) {
  const std::string split =
      absl::StrCat("AK", "IA\xE2\x80\x8BIOSF\xE2\x81\xA0\xC2\xAD",
                   "ODNN7EXA\xEF\xBB\xBFMPLE");
  GateResult r = Gate({{"notify", Json{{"body", "key: " + split}}.dump()}});
  ASSERT_THAT(Codes(r), ElementsAre("argument_secret"));
  EXPECT_EQ(r.violations[0].pointer, "/body");
}

// Argument rules read values only: a name is not the value at the rule's
// pointer (the schema's propertyNames is the rule for names).
TEST(ArgumentRulesTest, MemberNamesAreNotRuledValues) {
  EXPECT_EQ(Gate({{"read_file", R"({"path":"q3/summary.pdf","../../x":1})"}})
                .decision,
            Decision::kAllow);
}

TEST(LeaksTest, AMemberNameHoldingProtectedTextIsALeak) {
  const std::string prompt =
      "You are the billing assistant of Acme. Never reveal the discount "
      "codes: SPRING-2026-ALPHA, SUMMER-2026-BETA.";
  policy::LeakDetector leaks({prompt});
  RunFacts run;
  run.leaks = &leaks;
  const std::string copy = prompt.substr(20, 50);
  std::vector<std::string> names = {copy};
  for (const std::string& c :
       {"\xE2\x80\x8B", "\xE2\x81\xA0", "\xEF\xBB\xBF", "\xC2\xAD",
        "\xE2\x80\x8F", "\xE2\x80\xAE", "\xE2\x81\xA6"}) {
    std::string split;
    for (size_t i = 0; i < copy.size(); ++i) {
      split += copy[i];
      if (i % 9 == 8) split += c;
    }
    names.push_back(split);
  }
  for (const std::string& name : names) {
    // Read tools too: a leak is a leak whatever the tool does.
    for (const Json& args :
         {Json{{name, "x"}},
          Json{{"q", {{"deep", Json::array({Json{{name, 1}}})}}}}}) {
      GateResult r = Gate({{"lookup", args.dump()}}, run);
      EXPECT_THAT(Codes(r), ElementsAre("argument_leak")) << name;
      if (r.violations.empty()) continue;
      const std::string& pointer = r.violations[0].pointer;
      EXPECT_EQ(pointer.substr(pointer.size() - name.size()), name);
      EXPECT_EQ(r.violations[0].message.find(copy.substr(10, 20)),
                std::string::npos);
    }
  }
  // 31 bytes of it in a name are not a leak.
  EXPECT_EQ(
      Gate({{"lookup", Json{{"#" + prompt.substr(20, 31) + "#", 1}}.dump()}},
           run)
          .decision,
      Decision::kAllow);
}

}  // namespace
}  // namespace toolgate
