#include "client/schema_check.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace client {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

fs::path Dir() {
  fs::path d = fs::path(::testing::TempDir()) / "schema_check_test";
  fs::create_directories(d / "refs");
  return d;
}

std::string Write(const std::string& name, const std::string& text) {
  const fs::path p = Dir() / name;
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
  return p.string();
}

struct Case {
  const char* name;
  const char* schema;                // Written to a file passed as --schema.
  std::vector<std::string> extra;    // More arguments.
  const char* stdin_text;
  int exit_code;
  std::vector<std::string> stdout_lines;  // Exact, in order.
  const char* stderr_part;                // Substring ("" for none).
};

class SchemaCheckTest : public ::testing::TestWithParam<Case> {};

TEST_P(SchemaCheckTest, ExitCodeAndOutput) {
  const Case& c = GetParam();
  std::vector<std::string> args = {"schema", "check"};
  if (c.schema) {
    args.push_back("--schema");
    args.push_back(Write(std::string(c.name) + ".json", c.schema));
  }
  // "REFS" in an argument stands for the fixture directory of $ref files.
  for (std::string a : c.extra) {
    const size_t at = a.find("REFS");
    if (at != std::string::npos) a.replace(at, 4, (Dir() / "refs").string());
    args.push_back(a);
  }
  std::istringstream in(c.stdin_text);
  std::ostringstream out, err;
  EXPECT_EQ(RunSchemaCheck(args, in, out, err), c.exit_code) << err.str();
  std::vector<std::string> lines;
  std::istringstream got(out.str());
  for (std::string l; std::getline(got, l);) lines.push_back(l);
  EXPECT_EQ(lines, c.stdout_lines);
  EXPECT_THAT(err.str(), HasSubstr(c.stderr_part));
}

constexpr char kObject[] =
    R"({"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]})";

INSTANTIATE_TEST_SUITE_P(
    Table, SchemaCheckTest,
    ::testing::Values(
        Case{"all_valid", kObject, {}, "{\"n\":1}\n\n{\"n\":2.0}\n", 0,
             {R"({"valid":true})", R"({"valid":true})"}, ""},
        Case{"one_invalid", kObject, {}, "{\"n\":1}\n{\"n\":\"x\"}\n", 1,
             {R"({"valid":true})",
              R"j({"valid":false,"violations":[{"expected":"integer","keyword":"type","message":"expected integer, got string","pointer":"/n","received":"\"x\"","schema_pointer":"/properties/n/type"}]})j"},
             ""},
        Case{"missing_required", kObject, {}, "{}\n", 1,
             {R"j({"valid":false,"violations":[{"expected":"required property \"n\"","keyword":"required","message":"missing required property \"n\"","pointer":"","received":"{}","schema_pointer":"/required"}]})j"},
             ""},
        Case{"duplicate_key_is_invalid_json", kObject, {}, "{\"n\":1,\"n\":2}\n", 1,
             {R"j({"valid":false,"violations":[{"expected":"one strict JSON value (RFC 8259)","keyword":"invalid_json","message":"duplicate_key: duplicate object key \"n\" at /n","pointer":"/n","received":"{\"n\":1,\"n\":2}","schema_pointer":""}]})j"},
             ""},
        Case{"truncated_line", kObject, {}, "{\"n\":\n", 1,
             {R"j({"valid":false,"violations":[{"expected":"one strict JSON value (RFC 8259)","keyword":"invalid_json","message":"truncated_json: parse error at line 1, column 6: syntax error while parsing value - unexpected end of input; expected '[', '{', or a literal at /n","pointer":"/n","received":"{\"n\":","schema_pointer":""}]})j"},
             ""},
        Case{"format_annotation_by_default", R"({"format":"email"})", {},
             "\"nope\"\n", 0, {R"({"valid":true})"}, ""},
        Case{"format_assertion", R"({"format":"email"})", {"--format-assertion"},
             "\"nope\"\n\"a@example.com\"\n", 1,
             {R"j({"valid":false,"violations":[{"expected":"format email","keyword":"format","message":"string is not a valid email","pointer":"","received":"\"nope\"","schema_pointer":"/format"}]})j",
              R"({"valid":true})"},
             ""},
        Case{"draft7_by_flag", R"({"items":[{"type":"integer"}],"additionalItems":false})",
             {"--dialect", "draft7"}, "[1]\n[1,2]\n", 1,
             {R"({"valid":true})",
              R"j({"valid":false,"violations":[{"expected":"at most 1 items","keyword":"additionalItems","message":"array has 2 items; expected at most 1 items","pointer":"/1","received":"[1,2]","schema_pointer":"/additionalItems"}]})j"},
             ""},
        Case{"tuple_items_refused_in_2020", R"({"items":[{"type":"integer"}]})", {},
             "[1]\n", 2, {}, "prefixItems"},
        // A device (or FIFO) named as a file is refused, never read.
        Case{"schema_from_a_device", nullptr, {"--schema", "/dev/urandom"},
             "1\n", 2, {},
             "/dev/urandom: is a character device, not a regular file"},
        Case{"remote_ref_refused", R"({"$ref":"https://example.com/x.json"})", {},
             "1\n", 2, {}, "https://example.com/x.json"},
        Case{"ref_dir", R"({"$ref":"https://schemas.example/defs/int.json"})",
             {"--ref-dir=https://schemas.example/defs/=REFS"}, "3\n\"3\"\n", 1,
             {R"({"valid":true})",
              R"j({"valid":false,"violations":[{"expected":"integer","keyword":"type","message":"expected integer, got string","pointer":"","received":"\"3\"","schema_pointer":"https://schemas.example/defs/int.json#/type"}]})j"},
             ""},
        Case{"ref_dir_dot_dot_cannot_escape",
             R"({"$ref":"https://schemas.example/defs/../secret.json"})",
             {"--ref-dir", "https://schemas.example/defs/=REFS"}, "3\n", 2, {},
             "https://schemas.example/secret.json"},
        Case{"ref_dir_symlink_cannot_escape",
             R"({"$ref":"https://schemas.example/defs/link.json"})",
             {"--ref-dir", "https://schemas.example/defs/=REFS"}, "3\n", 2, {},
             "outside"},
        Case{"unknown_dialect", kObject, {"--dialect", "draft4"}, "{}\n", 2, {},
             "--dialect must be draft7 or 2020-12"},
        Case{"no_schema_flag", nullptr, {}, "{}\n", 2, {}, "usage:"},
        Case{"unknown_flag", kObject, {"--fast"}, "{}\n", 2, {}, "unknown argument --fast"},
        Case{"no_instances", kObject, {}, "\n\n", 2, {}, "no instances"},
        Case{"schema_not_json", "{\"type\":", {}, "1\n", 2, {}, "not strict JSON"}),
    [](const auto& info) { return std::string(info.param.name); });

class Environment : public ::testing::Environment {
 public:
  void SetUp() override {
    Write("refs/int.json", R"({"type":"integer"})");
    Write("secret.json", R"({"type":"integer"})");
    std::error_code ec;
    fs::create_symlink(Dir() / "secret.json", Dir() / "refs/link.json", ec);
  }
};

}  // namespace
}  // namespace client
}  // namespace toolgate

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  testing::AddGlobalTestEnvironment(new toolgate::client::Environment);
  return RUN_ALL_TESTS();
}
