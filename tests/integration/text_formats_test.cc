// Declared text formats through the real server: OpenRun.text_format and
// ValidateToolCallRequest.text_format on the wire, the run's format for a
// client stream, and every value the server does not name refused.
#include <string>

#include "core/json/strict_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/server_fixture.h"

namespace toolgate {
namespace {

using ::testing::HasSubstr;

constexpr char kPythonic[] =
    "[update_ticket(ticket_id='TCK-004242', priority='urgent')]";
constexpr char kArgs[] = R"({"priority":"urgent","ticket_id":"TCK-004242"})";

class TextFormatsTest : public testutil::ServerFixture {
 protected:
  v1::OpenRunResponse OpenFormatted(v1::TextFormat format) {
    v1::OpenRunRequest req;
    req.set_snapshot_id(SnapshotNamed("tickets"));
    req.set_model("llama-3.2");
    req.set_text_format(format);
    return OpenRun(req);
  }

  grpc::Status InRun(const v1::OpenRunResponse& run, const std::string& text,
                     v1::TextFormat format,
                     v1::ValidateToolCallResponse* resp) {
    v1::ValidateToolCallRequest req;
    req.set_run_id(run.run_id());
    req.set_run_token(run.run_token());
    req.set_text(text);
    req.set_text_format(format);
    return Validate(req, resp);
  }
};

TEST_F(TextFormatsTest, StatelessRequestDeclaresItsFormat) {
  v1::ValidateToolCallRequest req;
  req.set_snapshot_id(SnapshotNamed("tickets"));
  req.set_text(kPythonic);
  req.set_text_format(v1::TEXT_FORMAT_PYTHONIC);
  v1::ValidateToolCallResponse resp;
  ASSERT_TRUE(Validate(req, &resp).ok());
  ASSERT_EQ(resp.decision(), v1::DECISION_ALLOW) << resp.DebugString();
  EXPECT_EQ(resp.calls(0).arguments_json(), kArgs);
  EXPECT_EQ(resp.calls(0).source(), "pythonic");

  req.clear_text_format();  // Today's reading: not a call.
  ASSERT_TRUE(Validate(req, &resp).ok());
  EXPECT_EQ(resp.decision(), v1::DECISION_REJECT);
  EXPECT_EQ(resp.violations(0).code(), "no_tool_call");
}

TEST_F(TextFormatsTest, TheRunCarriesItsFormat) {
  const v1::OpenRunResponse run = OpenFormatted(v1::TEXT_FORMAT_PYTHONIC);
  v1::ValidateToolCallResponse resp;
  ASSERT_TRUE(InRun(run, kPythonic, v1::TEXT_FORMAT_UNSPECIFIED, &resp).ok());
  EXPECT_EQ(resp.decision(), v1::DECISION_ALLOW) << resp.DebugString();
  ASSERT_TRUE(InRun(run, kPythonic, v1::TEXT_FORMAT_PYTHONIC, &resp).ok());
  EXPECT_EQ(resp.decision(), v1::DECISION_ALLOW);

  const grpc::Status other =
      InRun(run, kPythonic, v1::TEXT_FORMAT_MISTRAL, &resp);
  EXPECT_EQ(other.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(other.error_message(), HasSubstr("TEXT_FORMAT_PYTHONIC"));

  // A refusal in the format counts toward the breaker and shows the syntax.
  ASSERT_TRUE(InRun(run, "[update_ticket(ticket_id=x)]",
                    v1::TEXT_FORMAT_UNSPECIFIED, &resp)
                  .ok());
  EXPECT_EQ(resp.decision(), v1::DECISION_REJECT);
  EXPECT_EQ(resp.violations(0).code(), "malformed_tool_call");
  EXPECT_EQ(resp.violations(0).pointer(), "/0/arguments/ticket_id");
  EXPECT_EQ(resp.attempt(), 1);
  EXPECT_THAT(resp.repair_prompt(), HasSubstr("\"format\":\"pythonic\""));
}

TEST_F(TextFormatsTest, UnnamedValuesAreInvalidArguments) {
  v1::OpenRunRequest open;
  open.set_snapshot_id(SnapshotNamed("tickets"));
  open.set_text_format(static_cast<v1::TextFormat>(99));
  grpc::ClientContext ctx;
  v1::OpenRunResponse opened;
  EXPECT_EQ(stub_->OpenRun(&ctx, open, &opened).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);

  v1::ValidateToolCallRequest req;
  req.set_snapshot_id(SnapshotNamed("tickets"));
  req.set_text(kPythonic);
  req.set_text_format(static_cast<v1::TextFormat>(99));
  v1::ValidateToolCallResponse resp;
  EXPECT_EQ(Validate(req, &resp).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(TextFormatsTest, AClientStreamIsReadInTheRunsFormat) {
  const v1::OpenRunResponse run = OpenFormatted(v1::TEXT_FORMAT_MISTRAL);
  v1::ToolCallStreamRequest header;
  header.set_run_id(run.run_id());
  header.set_run_token(run.run_token());
  header.set_stream_format(v1::STREAM_FORMAT_OPENAI_CHAT);
  const std::string text =
      std::string(R"([TOOL_CALLS][{"name":"update_ticket","arguments":)") +
      kArgs + "}]";
  const std::string content = Json(text).dump();
  header.add_events(R"({"choices":[{"index":0,"delta":{"content":)" +
                    content + R"(},"finish_reason":null}]})");
  header.add_events(
      R"({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})");
  header.add_events("[DONE]");
  grpc::ClientContext ctx;
  v1::ValidateToolCallResponse resp;
  auto writer = stub_->ValidateToolCallStream(&ctx, &resp);
  ASSERT_TRUE(writer->Write(header));
  writer->WritesDone();
  ASSERT_TRUE(writer->Finish().ok());
  ASSERT_EQ(resp.decision(), v1::DECISION_ALLOW) << resp.DebugString();
  EXPECT_EQ(resp.calls(0).arguments_json(), kArgs);
  EXPECT_EQ(resp.calls(0).source(), "stream_openai_chat");
}

}  // namespace
}  // namespace toolgate
