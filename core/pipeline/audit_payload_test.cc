// Audit payloads are read back exactly as they were written (replay
// decides the same request), and a payload that is not one is refused
// naming what is wrong, never read as an empty request.
#include "core/pipeline/audit_payload.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace toolgate {
namespace {

TEST(AuditPayloadTest, CallRoundTrips) {
  for (OutputKind kind : {OutputKind::kText, OutputKind::kNative}) {
    for (bool repair : {false, true}) {
      ValidateCallRequest request;
      request.kind = kind;
      request.output = R"({"tool_calls":[]} é)";
      request.syntax_repair = repair;
      const Json payload = CallPayload(request);
      auto back = CallFromPayload(payload);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(back->kind, kind);
      EXPECT_EQ(back->output, request.output);
      EXPECT_EQ(back->syntax_repair, repair);
      EXPECT_FALSE(payload.contains("snapshot_id"));
    }
  }
}

TEST(AuditPayloadTest, StreamRoundTripsInProtoJsonForm) {
  const std::vector<std::string> events = {R"({"choices":[]})", "[DONE]"};
  ValidateCallRequest request;
  request.kind = OutputKind::kStream;
  request.stream_format = stream::Format::kAnthropicMessages;
  request.stream_events.assign(events.begin(), events.end());
  const Json payload = CallPayload(request);
  EXPECT_EQ(CanonicalJson(payload),
            R"({"repair":"REPAIR_POLICY_STRICT","stream_events":{"events":)"
            R"(["{\"choices\":[]}","[DONE]"],"format":)"
            R"("STREAM_FORMAT_ANTHROPIC_MESSAGES"}})");
  auto back = CallFromPayload(payload);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->kind, OutputKind::kStream);
  EXPECT_EQ(back->stream_format, stream::Format::kAnthropicMessages);
  ASSERT_EQ(back->stream_events.size(), 2u);
  EXPECT_EQ(back->stream_events[0], events[0]);
  EXPECT_EQ(back->stream_events[1], events[1]);
}

// The mesh's calls are decided as sent; replay must decide them so too.
TEST(AuditPayloadTest, ForwardAsSentRoundTripsAndIsOnlyWrittenWhenSet) {
  ValidateCallRequest request;
  request.kind = OutputKind::kNative;
  request.output = "{}";
  request.forward_as_sent = true;
  const Json payload = CallPayload(request);
  EXPECT_EQ(CanonicalJson(payload),
            R"({"forward_as_sent":true,"native_json":"{}",)"
            R"("repair":"REPAIR_POLICY_STRICT"})");
  auto back = CallFromPayload(payload);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->forward_as_sent);
  request.forward_as_sent = false;
  EXPECT_FALSE(CallPayload(request).contains("forward_as_sent"));
  Json wrong = payload;
  wrong["forward_as_sent"] = "yes";
  EXPECT_FALSE(CallFromPayload(wrong).ok());
}

TEST(AuditPayloadTest, CallPayloadUsesProtoJsonNames) {
  ValidateCallRequest request;
  request.kind = OutputKind::kNative;
  request.output = "{}";
  request.syntax_repair = true;
  EXPECT_EQ(CanonicalJson(CallPayload(request)),
            R"({"native_json":"{}","repair":"REPAIR_POLICY_SYNTAX_REPAIR"})");
}

TEST(AuditPayloadTest, VerdictRoundTrips) {
  VerdictRequest request;
  request.envelope = "```json\n{\"verdict\":\"pass\"}\n```";
  request.result_schema = R"({"type":"object"})";
  request.syntax_repair = true;
  auto back = VerdictFromPayload(VerdictPayload(request));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->envelope, request.envelope);
  EXPECT_EQ(back->result_schema, request.result_schema);
  EXPECT_TRUE(back->syntax_repair);
  EXPECT_FALSE(VerdictPayload(VerdictRequest()).contains("result_schema"));
}

TEST(AuditPayloadTest, OutputRoundTripsBinaryBodies) {
  const std::string body("\x00\xff{\"ok\":true}", 13);
  ValidateOutputRequest request;
  request.tool_name = "fetch";
  request.content_type = "application/json";
  request.http_status = 200;
  request.body = body;
  request.mode = output::OutputMode::kDegrade;
  std::string bytes;
  auto back = OutputFromPayload(OutputPayload(request), &bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->tool_name, "fetch");
  EXPECT_EQ(back->content_type, "application/json");
  EXPECT_EQ(back->http_status, 200);
  EXPECT_EQ(back->body, body);
  EXPECT_EQ(back->mode, output::OutputMode::kDegrade);
}

TEST(AuditPayloadTest, MalformedPayloadsAreRefused) {
  struct Case {
    const char* payload;
    const char* names;  // In the error message.
  };
  const Case kCalls[] = {
      {R"([])", "payload"},
      {R"({})", "text"},
      {R"({"text":"a","native_json":"{}"})", "exactly one"},
      {R"({"text":7})", "text"},
      {R"({"text":"a","repair":"FIX_EVERYTHING"})", "repair"},
      {R"({"text":"a","stream_events":{}})", "exactly one"},
      {R"({"stream_events":[]})", "stream_events"},
      {R"({"stream_events":{"format":"STREAM_FORMAT_UNSPECIFIED"}})",
       "stream_events.format"},
      {R"({"stream_events":{"format":"STREAM_FORMAT_GEMINI","events":"x"}})",
       "stream_events.events"},
      {R"({"stream_events":{"format":"STREAM_FORMAT_GEMINI","events":[1]}})",
       "stream_events.events"},
  };
  for (const Case& c : kCalls) {
    auto r = CallFromPayload(Json::parse(c.payload));
    ASSERT_FALSE(r.ok()) << c.payload;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(c.names), std::string::npos)
        << r.status();
  }
  const Case kOutputs[] = {
      {R"({"body":"***"})", "body"},
      {R"({"body":"","http_status":"200"})", "http_status"},
      {R"({"body":"","http_status":99999999999})", "http_status"},
      {R"({"body":"","mode":"OUTPUT_MODE_YOLO"})", "mode"},
  };
  for (const Case& c : kOutputs) {
    std::string bytes;
    auto r = OutputFromPayload(Json::parse(c.payload), &bytes);
    ASSERT_FALSE(r.ok()) << c.payload;
    EXPECT_NE(r.status().message().find(c.names), std::string::npos)
        << r.status();
  }
  EXPECT_FALSE(VerdictFromPayload(Json::parse(R"({"envelope":1})")).ok());
}

}  // namespace
}  // namespace toolgate
