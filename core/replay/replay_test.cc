// Replay as a team uses it before an upgrade: recorded traffic decided
// again against a changed manifest reports exactly the calls whose answer
// changes, and never reports "nothing changed" for records it could not
// decide.
#include "core/replay/replay.h"

#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;

constexpr char kIdIsInteger[] = R"([{"name":"lookup","input_schema":{
  "type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}}])";
constexpr char kIdIsString[] = R"([{"name":"lookup","input_schema":{
  "type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}])";

std::string Native(const std::string& arguments) {
  return Json{{"role", "assistant"},
              {"content", Json::array({{{"type", "tool_use"},
                                        {"id", "t1"},
                                        {"name", "lookup"},
                                        {"input", Json::parse(arguments)}}})}}
      .dump();
}

// Records calls on an engine with payloads on, as audit lines.
class Recorder {
 public:
  Recorder()
      : engine_(Options(), [this](const AuditRecord& r) {
          Json line = {{"audit_id", r.audit_id}, {"rpc", r.rpc},
                       {"decision", r.decision}, {"tools", r.tools},
                       {"codes", r.codes},       {"payload", r.payload}};
          if (r.payload.is_null()) line.erase("payload");
          lines_ += line.dump() + "\n";
          return true;
        }) {
    auto s = engine_.CreateSnapshot(kIdIsInteger, ManifestFormat::kAuto, "");
    EXPECT_TRUE(s.ok()) << s.status();
    snapshot_ = (*s)->id();
  }

  void Call(const std::string& output) {
    ValidateCallRequest r;
    r.snapshot_id = snapshot_;
    r.kind = OutputKind::kNative;
    r.output = output;
    EXPECT_TRUE(engine_.ValidateToolCall(r).ok());
  }
  void Verdict(const std::string& envelope) {
    VerdictRequest r;
    r.envelope = envelope;
    EXPECT_TRUE(engine_.ExtractVerdict(r).ok());
  }
  void Output(const std::string& body) {
    ValidateOutputRequest r;
    r.snapshot_id = snapshot_;
    r.tool_name = "lookup";
    r.content_type = "application/json";
    r.http_status = 200;
    r.body = body;
    EXPECT_TRUE(engine_.ValidateToolOutput(r).ok());
  }
  std::string& lines() { return lines_; }

 private:
  static EngineOptions Options() {
    EngineOptions o;
    o.audit_payloads = true;
    return o;
  }
  std::string lines_;
  Engine engine_;
  std::string snapshot_;
};

absl::StatusOr<ReplayReport> ReplayAgainst(const std::string& lines,
                                           const char* manifest) {
  auto local = LocalRedecider::ForManifest(manifest);
  if (!local.ok()) return local.status();
  std::istringstream in(lines);
  return Replay(in, [&](absl::string_view rpc, const Json& payload) {
    return (*local)->Decide(rpc, payload);
  });
}

TEST(ReplayTest, SameManifestChangesNothing) {
  Recorder rec;
  rec.Call(Native(R"({"id":7})"));
  rec.Call(Native(R"({"id":"seven"})"));
  rec.Verdict("```json\n{\"verdict\":\"pass\",\"reason\":\"ok\"}\n```");
  rec.Output(R"({"ok":true})");
  auto report = ReplayAgainst(rec.lines(), kIdIsInteger);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_FALSE(report->changed);
  EXPECT_EQ(report->summary["replayed"], 4);
  EXPECT_EQ(report->summary["same"], 4);
  EXPECT_EQ(report->summary["changed"], 0);
  EXPECT_EQ(report->summary["skipped"], 0);
  EXPECT_TRUE(report->summary["changes"].empty());
}

TEST(ReplayTest, ChangedSchemaReportsEachChangedCall) {
  Recorder rec;
  rec.Call(Native(R"({"id":7})"));        // ALLOW -> REJECT
  rec.Call(Native(R"({"id":"seven"})"));  // REJECT -> ALLOW
  rec.Call(Native(R"({})"));              // REJECT -> REJECT (same code)
  auto report = ReplayAgainst(rec.lines(), kIdIsString);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->changed);
  EXPECT_EQ(report->summary["replayed"], 3);
  EXPECT_EQ(report->summary["same"], 1);
  EXPECT_EQ(report->summary["changed"], 2);
  const Json& changes = report->summary["changes"];
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0]["rpc"], "ValidateToolCall");
  EXPECT_EQ(changes[0]["tool"], "lookup");
  EXPECT_EQ(changes[0]["before"], "ALLOW");
  EXPECT_EQ(changes[0]["after"], "REJECT");
  EXPECT_EQ(changes[0]["violations"], Json::parse(R"(["invalid_arguments"])"));
  EXPECT_EQ(changes[1]["before"], "REJECT");
  EXPECT_EQ(changes[1]["after"], "ALLOW");
  EXPECT_TRUE(changes[1]["violations"].empty());
}

TEST(ReplayTest, RecordsItCannotDecideAgainAreSkippedWithAReason) {
  const std::string lines =
      R"({"audit_id":"a1","rpc":"ValidateToolCall","decision":"ALLOW"})"
      "\n"
      R"({"audit_id":"a2","rpc":"ValidateToolCall","decision":"STOP",)"
      R"("payload":{"text":"x"}})"
      "\n"
      R"({"audit_id":"a3","rpc":"ValidateToolCall","decision":"REJECT",)"
      R"("codes":["kill_switch_read_only"],"payload":{"text":"x"}})"
      "\n"
      R"({"audit_id":"a4","rpc":"ApproveCall","decision":"ALLOW",)"
      R"("payload":{}})"
      "\n\n";
  auto report = ReplayAgainst(lines, kIdIsInteger);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_FALSE(report->changed);
  EXPECT_EQ(report->summary["replayed"], 0);
  EXPECT_EQ(report->summary["skipped"], 4);
  EXPECT_EQ(report->summary["skipped_reasons"],
            Json::parse(R"({"no_payload":1,"run_state":2,"unknown_rpc":1})"));
}

TEST(ReplayTest, UnreadableRecordsAreErrorsNamingTheLine) {
  struct Case {
    std::string lines;
    const char* message;
  };
  const Case kCases[] = {
      {"{\"audit_id\":\"a\",\"rpc\":\"ExtractVerdict\",\"decision\":\"PASS\","
       "\"payload\":{\"envelope\":1}}\n",
       "audit line 1 (a): "},
      {"\n{\"audit_id\":\"a\"}\n", "audit line 2: not an audit record"},
      {"{\"audit_id\":\"a\",\"rpc\":\"r\",\"decision\":\"d\",\"codes\":7}\n",
       "codes is not a list"},
      {"not json\n", "audit line 1: not a JSON object"},
  };
  for (const Case& c : kCases) {
    auto report = ReplayAgainst(c.lines, kIdIsInteger);
    ASSERT_FALSE(report.ok()) << c.lines;
    EXPECT_THAT(report.status().message(), HasSubstr(c.message));
  }
}

// A server auditing to the file being replayed appends a line per replayed
// call; replay stops where the file ended when it began.
TEST(ReplayTest, ReadsOnlyWhatWasRecordedBeforeItBegan) {
  Recorder rec;
  rec.Call(Native(R"({"id":7})"));
  const std::string first = rec.lines();
  rec.Call(Native(R"({"id":8})"));
  auto local = LocalRedecider::ForManifest(kIdIsInteger);
  ASSERT_TRUE(local.ok());
  std::istringstream in(rec.lines());
  auto report = Replay(
      in,
      [&](absl::string_view rpc, const Json& payload) {
        return (*local)->Decide(rpc, payload);
      },
      first.size());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->summary["replayed"], 1);
}

TEST(ReplayTest, ABadManifestIsAnError) {
  auto local = LocalRedecider::ForManifest("{not json");
  EXPECT_FALSE(local.ok());
}

}  // namespace
}  // namespace toolgate
