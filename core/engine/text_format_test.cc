// Declared text formats through the engine: a run carries its model
// family's format, a request may only repeat it, every stage (schema,
// repair loop, breaker, streams, audit replay) works on calls read in it,
// and nothing reads text in another shape by a fallback.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/engine/engine.h"
#include "core/pipeline/audit_payload.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

using extract::TextFormat;
using ::testing::HasSubstr;

constexpr char kManifest[] = R"([{"name":"pkg.search","input_schema":{
  "type":"object","properties":{"query":{"type":"string"},
  "limit":{"type":"integer","maximum":100}},
  "required":["query"],"additionalProperties":false}}])";

#define DS(x) "<\xEF\xBD\x9Ctool\xE2\x96\x81" x "\xEF\xBD\x9C>"

struct FormatCase {
  TextFormat format;
  std::string valid;    // pkg.search(query="x", limit=5)
  std::string invalid;  // limit=500
};

const std::vector<FormatCase>& Cases() {
  static const auto* cases = new std::vector<FormatCase>{
      {TextFormat::kHermes,
       R"(<tool_call>{"name": "pkg.search", "arguments": {"query": "x", "limit": 5}}</tool_call>)",
       R"(<tool_call>{"name": "pkg.search", "arguments": {"query": "x", "limit": 500}}</tool_call>)"},
      {TextFormat::kMistral,
       R"(Searching.[TOOL_CALLS][{"name": "pkg.search", "arguments": {"query": "x", "limit": 5}, "id": "abcDEF123"}])",
       R"([TOOL_CALLS][{"name": "pkg.search", "arguments": {"query": "x", "limit": 500}}])"},
      {TextFormat::kLlama3Json,
       R"(<|python_tag|>{"name": "pkg.search", "parameters": {"query": "x", "limit": 5}})",
       R"({"name": "pkg.search", "parameters": {"query": "x", "limit": 500}})"},
      {TextFormat::kPythonic, "[pkg.search(query='x', limit=5)]",
       "[pkg.search(query='x', limit=500)]"},
      {TextFormat::kGranite,
       R"(<|tool_call|>[{"name": "pkg.search", "arguments": {"query": "x", "limit": 5}}])",
       R"(<|tool_call|>[{"name": "pkg.search", "arguments": {"query": "x", "limit": 500}}])"},
      {TextFormat::kDeepSeekV3,
       DS("calls\xE2\x96\x81" "begin") DS("call\xE2\x96\x81" "begin")
       "function" DS("sep") "pkg.search\n```json\n{\"query\": \"x\", "
       "\"limit\": 5}\n```" DS("call\xE2\x96\x81" "end")
       DS("calls\xE2\x96\x81" "end"),
       DS("calls\xE2\x96\x81" "begin") DS("call\xE2\x96\x81" "begin")
       "function" DS("sep") "pkg.search\n```json\n{\"query\": \"x\", "
       "\"limit\": 500}\n```" DS("call\xE2\x96\x81" "end")
       DS("calls\xE2\x96\x81" "end")},
  };
  return *cases;
}

class TextFormatTest : public testing::Test {
 protected:
  void SetUp() override { snapshot_ = Snapshot(engine_); }

  static std::string Snapshot(Engine& engine) {
    auto s = engine.CreateSnapshot(kManifest, ManifestFormat::kAuto, "");
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? (*s)->id() : "";
  }

  OpenedRun Open(TextFormat format) {
    RunLimits limits;
    limits.text_format = format;
    auto run = engine_.OpenRun(snapshot_, "m", {}, limits);
    EXPECT_TRUE(run.ok()) << run.status();
    return *run;
  }

  static ValidateCallRequest Text(const std::string& text, TextFormat format) {
    ValidateCallRequest r;
    r.kind = OutputKind::kText;
    r.output = text;
    r.text_format = format;
    return r;
  }

  absl::StatusOr<ValidateCallResponse> Stateless(const std::string& text,
                                                 TextFormat format) {
    ValidateCallRequest r = Text(text, format);
    r.snapshot_id = snapshot_;
    return engine_.ValidateToolCall(r);
  }

  absl::StatusOr<ValidateCallResponse> InRun(const OpenedRun& run,
                                             const std::string& text,
                                             TextFormat format) {
    ValidateCallRequest r = Text(text, format);
    r.run_id = run.run->id();
    r.run_token = run.token;
    return engine_.ValidateToolCall(r);
  }

  Engine engine_;
  std::string snapshot_;
};

TEST_F(TextFormatTest, EachFormatAllowsItsCallAndChecksItsSchema) {
  for (const FormatCase& c : Cases()) {
    const std::string name(extract::TextFormatName(c.format));
    auto ok = Stateless(c.valid, c.format);
    ASSERT_TRUE(ok.ok()) << ok.status();
    ASSERT_EQ(ok->decision, Decision::kAllow) << name;
    ASSERT_EQ(ok->calls.size(), 1u);
    EXPECT_EQ(ok->calls[0].source, name);
    EXPECT_EQ(ok->calls[0].arguments_json, R"({"limit":5,"query":"x"})");
    EXPECT_EQ(ok->calls[0].id,
              c.format == TextFormat::kMistral ? "abcDEF123" : "")
        << name;

    auto bad = Stateless(c.invalid, c.format);
    ASSERT_TRUE(bad.ok());
    EXPECT_EQ(bad->decision, Decision::kReject) << name;
    ASSERT_FALSE(bad->violations.empty());
    EXPECT_EQ(bad->violations[0].code, "invalid_arguments") << name;
    EXPECT_EQ(bad->violations[0].pointer, "/limit") << name;
    // The repair prompt shows the family's own syntax.
    const Json prompt = Json::parse(bad->repair_prompt);
    EXPECT_EQ(prompt.value("format", ""), name);
    EXPECT_THAT(prompt.value("syntax", ""), HasSubstr("pkg.search")) << name;
    EXPECT_EQ(prompt.value("syntax", "").substr(0, 5), c.valid.substr(
        c.format == TextFormat::kMistral ? 10 : 0, 5))
        << name;
  }
}

TEST_F(TextFormatTest, UnspecifiedKeepsTodaysReading) {
  auto tag = Stateless(Cases()[0].valid, TextFormat::kUnspecified);
  ASSERT_TRUE(tag.ok());
  EXPECT_EQ(tag->decision, Decision::kAllow);
  EXPECT_EQ(tag->calls[0].source, "tool_call_tag");
  EXPECT_EQ(Json::parse(tag->repair_prompt.empty() ? "{}" : tag->repair_prompt)
                .count("format"),
            0u);
  // The families' own syntaxes are not today's shapes.
  for (const FormatCase& c : Cases()) {
    if (c.format == TextFormat::kHermes ||
        c.format == TextFormat::kLlama3Json) {
      continue;  // A tag and a bare object: today's shapes (not llama's
                 // "parameters", refused below).
    }
    auto r = Stateless(c.valid, TextFormat::kUnspecified);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->decision, Decision::kReject)
        << extract::TextFormatName(c.format);
    EXPECT_EQ(Json::parse(r->repair_prompt).count("syntax"), 0u);
  }
}

TEST_F(TextFormatTest, ADeclaredFormatReadsNothingElse) {
  for (const FormatCase& c : Cases()) {
    for (const FormatCase& other : Cases()) {
      if (other.format == c.format) continue;
      auto r = Stateless(other.valid, c.format);
      ASSERT_TRUE(r.ok());
      EXPECT_EQ(r->decision, Decision::kReject)
          << extract::TextFormatName(other.format) << " read as "
          << extract::TextFormatName(c.format);
      EXPECT_TRUE(r->calls.empty());
    }
  }
}

TEST_F(TextFormatTest, TheRunCarriesItsFormat) {
  const OpenedRun run = Open(TextFormat::kPythonic);
  EXPECT_EQ(run.run->text_format(), TextFormat::kPythonic);
  auto unset = InRun(run, "[pkg.search(query='x')]", TextFormat::kUnspecified);
  ASSERT_TRUE(unset.ok());
  EXPECT_EQ(unset->decision, Decision::kAllow);
  EXPECT_EQ(unset->calls[0].source, "pythonic");
  auto same = InRun(run, "[pkg.search(query='x')]", TextFormat::kPythonic);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->decision, Decision::kAllow);

  auto other = InRun(run, "[pkg.search(query='x')]", TextFormat::kMistral);
  EXPECT_EQ(other.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(other.status().message(), HasSubstr("TEXT_FORMAT_PYTHONIC"));

  const OpenedRun plain = Open(TextFormat::kUnspecified);
  auto declared = InRun(plain, "[pkg.search(query='x')]", TextFormat::kPythonic);
  EXPECT_EQ(declared.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(TextFormatTest, UnrecognizedFormatsAreInvalidArguments) {
  EXPECT_EQ(Stateless("[pkg.search(query='x')]", TextFormat::kUnrecognized)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  RunLimits limits;
  limits.text_format = TextFormat::kUnrecognized;
  EXPECT_EQ(engine_.OpenRun(snapshot_, "m", {}, limits).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(TextFormatTest, NativeOutputInAFormattedRunIsReadAsNative) {
  const OpenedRun run = Open(TextFormat::kPythonic);
  ValidateCallRequest r;
  const std::string native =
      R"({"name": "pkg.search", "arguments": {"query": "x"}})";
  r.kind = OutputKind::kNative;
  r.output = native;
  r.run_id = run.run->id();
  r.run_token = run.token;
  auto out = engine_.ValidateToolCall(r);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->decision, Decision::kAllow);
  EXPECT_EQ(out->calls[0].source, "mcp_call");
}

TEST_F(TextFormatTest, TheBreakerCountsRefusalsInTheFormat) {
  RunLimits limits;
  limits.text_format = TextFormat::kPythonic;
  limits.max_consecutive_rejects = 2;
  auto run = engine_.OpenRun(snapshot_, "m", {}, limits);
  ASSERT_TRUE(run.ok());
  const std::string expression = "[pkg.search(query=__import__('os'))]";
  auto first = InRun(*run, expression, TextFormat::kUnspecified);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->decision, Decision::kReject);
  EXPECT_EQ(first->violations[0].code, "malformed_tool_call");
  EXPECT_EQ(first->attempts_left, 1);
  auto second = InRun(*run, expression, TextFormat::kUnspecified);
  ASSERT_TRUE(second.ok());
  auto third = InRun(*run, "[pkg.search(query='x')]", TextFormat::kUnspecified);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->decision, Decision::kStop);
}

TEST_F(TextFormatTest, AStreamAssembledToTextIsReadInTheRunsFormat) {
  const OpenedRun run = Open(TextFormat::kPythonic);
  const auto chunk = [](const std::string& content, const char* finish) {
    return absl::StrCat(R"({"choices":[{"index":0,"delta":{"content":)",
                        Json(content).dump(), R"(},"finish_reason":)", finish,
                        "}]}");
  };
  const std::vector<std::string> events = {
      chunk("[pkg.search(query=", "null"), chunk("'x', limit=7)]", "null"),
      chunk("", "\"stop\""), "[DONE]"};
  ValidateCallRequest r;
  r.kind = OutputKind::kStream;
  r.stream_format = stream::Format::kOpenAIChat;
  r.stream_events.assign(events.begin(), events.end());
  r.run_id = run.run->id();
  r.run_token = run.token;
  auto out = engine_.ValidateToolCall(r);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->decision, Decision::kAllow);
  EXPECT_EQ(out->calls[0].arguments_json, R"({"limit":7,"query":"x"})");
  EXPECT_EQ(out->calls[0].source, "stream_openai_chat");
}

TEST(TextFormatAuditTest, ReplayReadsTheRunsFormat) {
  std::vector<AuditRecord> records;
  EngineOptions options;
  options.audit_payloads = true;
  Engine engine(options, [&](const AuditRecord& r) {
    records.push_back(r);
    return true;
  });
  auto snapshot = engine.CreateSnapshot(kManifest, ManifestFormat::kAuto, "");
  ASSERT_TRUE(snapshot.ok());
  RunLimits limits;
  limits.text_format = TextFormat::kGranite;
  auto run = engine.OpenRun((*snapshot)->id(), "m", {}, limits);
  ASSERT_TRUE(run.ok());
  ValidateCallRequest r;
  const std::string text = Cases()[4].valid;
  r.kind = OutputKind::kText;
  r.output = text;
  r.run_id = (*run).run->id();
  r.run_token = (*run).token;
  auto decided = engine.ValidateToolCall(r);
  ASSERT_TRUE(decided.ok());
  ASSERT_EQ(decided->decision, Decision::kAllow);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].payload.value("text_format", ""),
            "TEXT_FORMAT_GRANITE");

  auto again = CallFromPayload(records[0].payload);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->text_format, TextFormat::kGranite);
  again->snapshot_id = (*snapshot)->id();
  auto redecided = engine.ValidateToolCall(*again);
  ASSERT_TRUE(redecided.ok());
  EXPECT_EQ(redecided->decision, Decision::kAllow);

  Json bad = records[0].payload;
  bad["text_format"] = "TEXT_FORMAT_COBOL";
  EXPECT_FALSE(CallFromPayload(bad).ok());
}

}  // namespace
}  // namespace toolgate
