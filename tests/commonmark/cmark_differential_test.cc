// Differential test against cmark, the CommonMark reference parser.
//
// toolgate takes the LAST fenced JSON block as an agent's verdict and the
// last candidate as its tool call. Whatever toolgate's scan sees, a
// reviewer, a renderer or the next agent reads the same text as
// CommonMark. On every generated envelope (envelopes.h) this test holds
// toolgate to:
//   * ExtractVerdict answers PASS, FAIL or REFUSED only when cmark's last
//     fenced code block is the very block toolgate read (same line, a JSON
//     info string, the same JSON); anything else must be CONTRACT_STOP;
//   * ExtractToolCalls allows a fenced call only when it is cmark's last
//     fenced code block, and any other call only when cmark sees no fenced
//     code block after it.
// toolgate may stop where cmark would have read a block (it refuses every
// fence-like line after the block, indented or inside HTML ones included);
// those cases are counted and printed, not failed.
#include <functional>
#include <iostream>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/extract/extract.h"
#include "core/extract/scan.h"
#include "core/json/strict_json.h"
#include "core/verdict/verdict.h"
#include "gtest/gtest.h"
#include "tests/commonmark/cmark_oracle.h"
#include "tests/commonmark/envelopes.h"

namespace toolgate {
namespace {

using testutil::LastFencedCodeBlock;
using testutil::LineNumberOf;
using testutil::OracleBlock;

constexpr size_t kMaxPieces = 3;
constexpr size_t kRandom = 60000;
constexpr int kMaxReported = 10;

std::string Show(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\0') {
      out += "\\0";
    } else {
      out += c;
    }
  }
  return out;
}

// The JSON cmark shows in `block`, canonical; "" when it is not JSON.
std::string OracleJson(const OracleBlock& block) {
  absl::StatusOr<Json> parsed = ParseStrictJson(block.literal);
  return parsed.ok() ? CanonicalJson(*parsed) : "";
}

TEST(CmarkOracle, TellsFencedFromIndentedCode) {
  EXPECT_FALSE(LastFencedCodeBlock("    ```json\n    {}\n").found);
  EXPECT_FALSE(LastFencedCodeBlock("<!--\n```\n1\n```\n-->\n").found);
  const OracleBlock same_line = LastFencedCodeBlock("```x\n```x\n```\n");
  ASSERT_TRUE(same_line.found);
  EXPECT_EQ(same_line.literal, "```x\n");
  const OracleBlock quoted = LastFencedCodeBlock("a\r> ~~~ json\r> [1]\r");
  ASSERT_TRUE(quoted.found);
  EXPECT_EQ(quoted.start_line, 2);
  EXPECT_EQ(quoted.info, "json");
  EXPECT_EQ(quoted.literal, "[1]\n");
  EXPECT_TRUE(LastFencedCodeBlock("\xEF\xBB\xBF```\n1\n```").found);
}

class Differential : public testing::Test {
 protected:
  void Report(const std::string& what, const std::string& text) {
    if (++failures_ <= kMaxReported) {
      ADD_FAILURE() << what << "\n  envelope: \"" << Show(text) << "\"";
    }
  }
  using Visit = std::function<void(const std::string&)>;
  using Generator = std::function<void(const Visit&)>;
  void CheckVerdicts(const Generator& generate);
  void TearDown() override {
    EXPECT_EQ(failures_, 0)
        << "disagreements with cmark (first " << kMaxReported << " shown)";
  }
  int failures_ = 0;
};

const std::string kPass = R"({"verdict":"pass","reason":"ok"})";
const std::string kFail = R"({"verdict":"fail","reason":"no"})";

TEST_F(Differential, VerdictIsCmarksLastFencedBlockOrAStop) {
  const std::vector<testutil::Piece> pieces =
      testutil::MarkdownPieces(kPass, kFail);
  CheckVerdicts([&](const Visit& visit) {
    testutil::ForEachEnvelope(pieces, kMaxPieces, kRandom, visit);
  });
}

// A block framed by single lines in random order: openers, closers,
// containers and HTML before and after it meet in every combination.
TEST_F(Differential, VerdictOnBlocksFramedByRandomLines) {
  const std::vector<testutil::Piece> blocks = {
      {"```json", kPass, "```"},
      {"~~~", kFail, "~~~~"},
      {"  ```JSON", "  " + kPass, "  ```"}};
  const std::vector<testutil::Piece> lines =
      testutil::MarkdownLines(kPass, kFail);
  CheckVerdicts([&](const Visit& visit) {
    testutil::ForEachFramedBlock(lines, blocks, 2 * kRandom, visit);
  });
}

void Differential::CheckVerdicts(const Generator& generate) {
  absl::StatusOr<std::shared_ptr<const schema::Schema>> schema =
      verdict::DefaultResultSchema();
  ASSERT_TRUE(schema.ok());
  extract::ScanOptions fences_only;
  fences_only.tags = fences_only.react = fences_only.bare_objects = false;
  size_t envelopes = 0, agreed = 0;
  std::map<std::string, size_t> stricter;  // Stop reason -> count.
  generate([&](const std::string& text) {
    ++envelopes;
    const verdict::VerdictResult r =
        verdict::ExtractVerdict(text, **schema, repair::RepairPolicy::kStrict);
    const OracleBlock cm = LastFencedCodeBlock(text);
    if (r.outcome == verdict::Outcome::kContractStop) {
      if (cm.found && testutil::IsJsonInfoWord(cm.info) &&
          !OracleJson(cm).empty()) {
        ++stricter[r.stop_reason];
      }
      return;
    }
    if (!cm.found) return Report("verdict, but cmark sees no block", text);
    if (!testutil::IsJsonInfoWord(cm.info)) {
      return Report("verdict, but cmark's last block is " + cm.info, text);
    }
    const extract::ScanResult scan = extract::ScanCandidates(text, fences_only);
    const int line = LineNumberOf(text, scan.candidates.back().fence_begin);
    if (line != cm.start_line) {
      return Report(absl::StrCat("toolgate read the block on line ", line,
                                 ", cmark's last is on line ", cm.start_line),
                    text);
    }
    if (OracleJson(cm) != r.result_json) {
      return Report("cmark's block holds " + OracleJson(cm) +
                        ", toolgate read " + r.result_json,
                    text);
    }
    ++agreed;
  });
  std::cout << envelopes << " envelopes; " << agreed
            << " verdicts agree with cmark";
  for (const auto& [reason, n] : stricter) {
    std::cout << "; " << n << " stricter stops (" << reason << ")";
  }
  std::cout << "\n";
  EXPECT_GT(agreed, envelopes / 20);  // The test is not vacuous.
}

TEST_F(Differential, ToolCallIsNotFollowedByACmarkCodeBlock) {
  const std::string a = R"({"name":"a","arguments":{}})";
  const std::string b = R"({"name":"b","arguments":{"x":1}})";
  std::vector<testutil::Piece> pieces = testutil::MarkdownPieces(a, b);
  pieces.push_back({"<tool_call>" + a + "</tool_call>"});
  pieces.push_back({"Action: c", "Action Input: {\"y\": 2}"});
  size_t envelopes = 0, allowed = 0;
  testutil::ForEachEnvelope(pieces, 2, kRandom, [&](const std::string& text) {
    ++envelopes;
    const extract::ExtractionResult r = extract::ExtractToolCalls(text);
    if (!r.ok()) return;
    ++allowed;
    const extract::ScanResult scan = extract::ScanCandidates(text);
    const extract::Candidate& last = scan.candidates.back();
    const OracleBlock cm = LastFencedCodeBlock(text);
    if (last.fence_begin == absl::string_view::npos) {
      if (cm.found && cm.start_line > LineNumberOf(text, last.end - 1)) {
        Report("a call, then a code block cmark sees", text);
      }
      return;
    }
    if (!cm.found || cm.start_line != LineNumberOf(text, last.fence_begin)) {
      return Report("a fenced call that is not cmark's last block", text);
    }
    absl::StatusOr<Json> read = ParseStrictJson(last.json);
    if (!read.ok() || OracleJson(cm) != CanonicalJson(*read)) {
      Report("cmark's block holds other JSON: " + OracleJson(cm), text);
    }
  });
  std::cout << envelopes << " envelopes; " << allowed << " calls allowed\n";
  EXPECT_GT(allowed, envelopes / 20);
}

}  // namespace
}  // namespace toolgate
