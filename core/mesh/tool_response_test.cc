#include "core/mesh/tool_response.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace mesh {
namespace {

TEST(FindToolResponse, FindsTheResponseForTheId) {
  const Json id = 7;
  const std::string response =
      R"({"jsonrpc":"2.0","id":7,"result":{"content":[]}})";
  const struct {
    const char* type;
    std::string body;
  } cases[] = {
      {"application/json", response},
      {"application/json; charset=utf-8", response},
      {"text/event-stream", "data: " + response + "\n\n"},
      {"Text/Event-Stream",
       "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n"
       "data: " +
           response + "\n\n"},
      {"text/event-stream; charset=UTF-8", "data: " + response + "\n\n"},
      {"application/json; charset=\"utf-8\"", response},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    auto found = FindToolResponse(c.type, c.body, id, JsonLimits());
    ASSERT_TRUE(found.ok()) << found.status();
    EXPECT_EQ(*found, Json::parse(response));
  }
}

TEST(FindToolResponse, RefusesAnythingElseWithAReason) {
  const Json id = 7;
  const std::string ok = R"({"jsonrpc":"2.0","id":7,"result":{}})";
  const struct {
    const char* type;
    std::string body;
    const char* reason;
  } cases[] = {
      {"text/html", "<html></html>", "unsupported_content_type"},
      {"", ok, "unsupported_content_type"},
      {"application/json", "{", "unreadable_response"},
      {"application/json", R"({"jsonrpc":"2.0","id":8,"result":{}})",
       "unexpected_message"},
      {"application/json", R"({"jsonrpc":"2.0","id":"7","result":{}})",
       "unexpected_message"},
      {"application/json", R"({"id":7,"result":{}})", "unexpected_message"},
      {"text/event-stream", "data: " + ok + "\n\ndata: " + ok + "\n\n",
       "unexpected_message"},
      {"text/event-stream",
       "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sampling/x\"}\n\n",
       "unexpected_message"},
      {"text/event-stream", "data: {oops\n\n", "unreadable_response"},
      {"text/event-stream", ": only a comment\n\n", "no_response"},
      {"text/event-stream", "", "no_response"},
      // A member a client reading the whole body would see unchecked.
      {"application/json",
       R"({"jsonrpc":"2.0","id":7,"result":{},"note":"EVIL"})",
       "unexpected_message"},
      {"text/event-stream",
       "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{},\"x\":1}\n\n",
       "unexpected_message"},
      // A notification that is not JSON-RPC 2.0.
      {"text/event-stream",
       "data: {\"method\":\"notifications/x\"}\n\ndata: " + ok + "\n\n",
       "unexpected_message"},
      // Bodies some client reads otherwise (sse_reader.h).
      {"text/event-stream",
       "\xEF\xBB\xBF"
       "data: " +
           ok + "\n\n",
       "unreadable_response"},
      {"text/event-stream", "data: " + ok + "\n", "unreadable_response"},
      {"text/event-stream", "event: x\ndata: " + ok + "\n\n",
       "unreadable_response"},
      // A charset some clients decode otherwise.
      {"text/event-stream; charset=latin1", "data: " + ok + "\n\n",
       "unsupported_content_type"},
      {"application/json;charset=utf-16", ok, "unsupported_content_type"},
      {"application/json; charset=utf-8; charset=iso-8859-1", ok,
       "unsupported_content_type"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    auto found = FindToolResponse(c.type, c.body, id, JsonLimits());
    ASSERT_FALSE(found.ok());
    EXPECT_TRUE(absl::StartsWith(found.status().message(), c.reason))
        << found.status();
  }
}

TEST(FindToolResponse, RefusesAnAnswerOverTheSizeLimit) {
  JsonLimits limits;
  const std::string ok = R"({"jsonrpc":"2.0","id":7,"result":{}})";
  limits.max_bytes = ok.size();
  EXPECT_TRUE(FindToolResponse("application/json", ok, 7, limits).ok());
  for (const auto& [type, body] :
       std::vector<std::pair<std::string, std::string>>{
           {"application/json", ok + " "},
           {"text/event-stream", "data: " + ok + "\n\n"}}) {
    auto found = FindToolResponse(type, body, 7, limits);
    ASSERT_FALSE(found.ok());
    EXPECT_TRUE(absl::StartsWith(found.status().message(), "body_too_large"))
        << found.status();
  }
}

TEST(ToolResultBody, IsTheCanonicalResult) {
  auto body = ToolResultBody(Json::parse(
      R"({"jsonrpc":"2.0","id":1,"result":{"isError":false,"content":[]}})"));
  ASSERT_TRUE(body.ok());
  EXPECT_EQ(*body, R"({"content":[],"isError":false})");
}

TEST(ToolResultBody, ErrorAnswersAreRefused) {
  for (const char* r :
       {R"({"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}})",
        R"({"jsonrpc":"2.0","id":1})"}) {
    auto body = ToolResultBody(Json::parse(r));
    ASSERT_FALSE(body.ok());
    EXPECT_TRUE(absl::StartsWith(body.status().message(), "tool_error"));
  }
}

}  // namespace
}  // namespace mesh
}  // namespace toolgate
