#include "core/mesh/tool_response.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace mesh {
namespace {

TEST(SseEventData, JoinsDataLinesPerEvent) {
  const struct {
    const char* body;
    std::vector<std::string> events;
  } cases[] = {
      {"data: {\"a\":1}\n\n", {"{\"a\":1}"}},
      {"event: message\r\nid: 4\r\ndata: x\r\n\r\ndata:y\r\n\r\n", {"x", "y"}},
      {"data: a\ndata: b\n\n", {"a\nb"}},
      {": comment\n\nevent: ping\n\n", {}},
      {"data: last", {"last"}},
      {"data: a\r\rdata: b\r\r", {"a", "b"}},
      {"", {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    EXPECT_EQ(SseEventData(c.body), c.events);
  }
}

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
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    auto found = FindToolResponse(c.type, c.body, id, JsonLimits());
    ASSERT_FALSE(found.ok());
    EXPECT_TRUE(absl::StartsWith(found.status().message(), c.reason))
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
