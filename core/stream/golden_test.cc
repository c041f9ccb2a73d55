// The golden streams (tests/stream/golden): each assembles to its expected
// output or refusal, and the engine decides on it as expected, exactly as
// it decides the unary native/text output the stream assembled to.
#include <string>
#include <vector>

#include "core/engine/engine.h"
#include "core/pipeline/audit_payload.h"
#include "core/replay/replay.h"
#include "core/stream/assembler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/stream/golden_cases.h"

namespace toolgate {
namespace {

using ::testing::ElementsAreArray;
using testutil::GoldenStream;

stream::Assembly AssembleAll(const GoldenStream& c) {
  auto assembler = stream::Assembler::Create(c.format, stream::Limits());
  for (const std::string& e : c.events) assembler->Add(e);
  return assembler->Finish();
}

// The expected assembly in the golden's form.
Json Observed(const stream::Assembly& a) {
  if (!a.error.ok()) return {{"error", a.error.code}};
  Json out = Json::object();
  if (!a.native) {
    out["text"] = a.output;
    return out;
  }
  Json message = Json::parse(a.output);
  if (message["content"].is_string()) out["text"] = message["content"];
  Json calls = Json::array();
  for (const Json& tc : message["tool_calls"]) {
    Json call = {{"name", tc["function"]["name"]},
                 {"arguments", tc["function"]["arguments"]}};
    if (tc.contains("id")) call["id"] = tc["id"];
    calls.push_back(call);
  }
  out["calls"] = calls;
  return out;
}

std::vector<std::string> Codes(const ValidateCallResponse& r) {
  std::vector<std::string> codes;
  for (const Violation& v : r.violations) codes.push_back(v.code);
  return codes;
}

class Golden : public ::testing::TestWithParam<GoldenStream> {
 protected:
  ValidateCallResponse Decide(ValidateCallRequest r) {
    return golden_.Decide(std::move(r));
  }
  testutil::GoldenEngine golden_;
};

TEST_P(Golden, AssemblesAsExpected) {
  const GoldenStream& c = GetParam();
  EXPECT_EQ(Observed(AssembleAll(c)), c.expected["assembly"]) << c.path;
}

TEST_P(Golden, DecidesAsExpectedAndAsTheUnaryOutput) {
  const GoldenStream& c = GetParam();
  ValidateCallRequest streamed;
  streamed.kind = OutputKind::kStream;
  streamed.stream_format = c.format;
  streamed.stream_events.assign(c.events.begin(), c.events.end());
  const ValidateCallResponse got = Decide(streamed);
  EXPECT_EQ(std::string(DecisionName(got.decision)),
            c.expected["decision"].get<std::string>())
      << c.path;
  EXPECT_THAT(
      Codes(got),
      ElementsAreArray(c.expected["codes"].get<std::vector<std::string>>()))
      << c.path;
  for (const CallReport& call : got.calls) {
    EXPECT_EQ(call.source, stream::SourceName(c.format));
  }
  const stream::Assembly assembly = AssembleAll(c);
  if (!assembly.error.ok()) return;
  ValidateCallRequest unary;
  unary.kind = assembly.native ? OutputKind::kNative : OutputKind::kText;
  unary.output = assembly.output;
  const ValidateCallResponse whole = Decide(unary);
  EXPECT_EQ(got.decision, whole.decision);
  EXPECT_EQ(Codes(got), Codes(whole));
  ASSERT_EQ(got.calls.size(), whole.calls.size());
  for (size_t i = 0; i < got.calls.size(); ++i) {
    EXPECT_EQ(got.calls[i].name, whole.calls[i].name);
    EXPECT_EQ(got.calls[i].id, whole.calls[i].id);
    EXPECT_EQ(got.calls[i].arguments_json, whole.calls[i].arguments_json);
  }
}

// An audit payload of a stream replays to the same decision.
TEST_P(Golden, AuditPayloadReplaysToTheSameDecision) {
  const GoldenStream& c = GetParam();
  ValidateCallRequest streamed;
  streamed.kind = OutputKind::kStream;
  streamed.stream_format = c.format;
  streamed.stream_events.assign(c.events.begin(), c.events.end());
  const Json payload = CallPayload(streamed);
  auto local = LocalRedecider::ForManifest(testutil::GoldenManifest());
  ASSERT_TRUE(local.ok()) << local.status();
  auto again = (*local)->Decide("ValidateToolCall", payload);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->decision, c.expected["decision"].get<std::string>());
  EXPECT_EQ(again->codes, c.expected["codes"].get<std::vector<std::string>>());
}

INSTANTIATE_TEST_SUITE_P(
    Streams, Golden, ::testing::ValuesIn(testutil::LoadGoldenStreams()),
    [](const ::testing::TestParamInfo<GoldenStream>& info) {
      std::string name = info.param.name;
      for (char& ch : name) {
        if (ch == '/') ch = '_';
      }
      return name;
    });

}  // namespace
}  // namespace toolgate
