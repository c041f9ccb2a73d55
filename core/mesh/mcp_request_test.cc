#include "core/mesh/mcp_request.h"

#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace toolgate {
namespace mesh {
namespace {

struct ClassifyCase {
  const char* body;
  McpKind kind;
  const char* method;
  const char* tool;
  const char* deny_reason;
  const char* id;  // Canonical JSON of the id.
};

TEST(ReadMcpBody, ClassifiesEachMessage) {
  const ClassifyCase cases[] = {
      {R"({"jsonrpc":"2.0","id":7,"method":"tools/call",)"
       R"("params":{"name":"t","arguments":{"a":1}}})",
       McpKind::kToolCall, "tools/call", "t", "", "7"},
      {R"({"jsonrpc":"2.0","id":"x","method":"tools/call",)"
       R"("params":{"arguments":{}}})",
       McpKind::kToolCall, "tools/call", "", "", "\"x\""},
      // Params the engine would read as another shape of output.
      {R"({"jsonrpc":"2.0","id":"x","method":"tools/call","params":{}})",
       McpKind::kDeny, "tools/call", "", "invalid_params", "\"x\""},
      {R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]})",
       McpKind::kDeny, "tools/call", "", "invalid_params", "1"},
      {R"({"jsonrpc":"2.0","id":1,"method":"tools/call"})", McpKind::kDeny,
       "tools/call", "", "invalid_params", "1"},
      {R"({"jsonrpc":"2.0","id":1,"method":"tools/call",)"
       R"("params":{"tool_calls":[]}})",
       McpKind::kDeny, "tools/call", "", "invalid_params", "1"},
      // Ids the MCP SDK refuses: null, fractional, past 2^53-1.
      {R"({"jsonrpc":"2.0","id":null,"method":"ping"})", McpKind::kDeny,
       "ping", "", "not_jsonrpc", "null"},
      {R"({"jsonrpc":"2.0","id":1.0,"method":"ping"})", McpKind::kDeny,
       "ping", "", "not_jsonrpc", "null"},
      {R"({"jsonrpc":"2.0","id":9007199254740992,"method":"ping"})",
       McpKind::kDeny, "ping", "", "not_jsonrpc", "null"},
      {R"({"jsonrpc":"2.0","id":-9007199254740991,"method":"ping"})",
       McpKind::kPassThrough, "ping", "", "", "-9007199254740991"},
      {R"({"jsonrpc":"2.0","id":true,"method":"ping"})", McpKind::kDeny,
       "ping", "", "not_jsonrpc", "null"},
      {R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})",
       McpKind::kPassThrough, "initialize", "", "", "1"},
      {R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
       McpKind::kPassThrough, "notifications/initialized", "", "", "null"},
      {R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})",
       McpKind::kPassThrough, "tools/list", "", "", "2"},
      {R"({"jsonrpc":"2.0","id":3,"method":"resources/templates/list"})",
       McpKind::kPassThrough, "resources/templates/list", "", "", "3"},
      {R"({"jsonrpc":"2.0","id":4,"method":"logging/setLevel"})",
       McpKind::kPassThrough, "logging/setLevel", "", "", "4"},
      {R"({"jsonrpc":"2.0","id":5,"method":"sampling/createMessage"})",
       McpKind::kDeny, "sampling/createMessage", "", "method_not_allowed", "5"},
      {R"({"jsonrpc":"2.0","id":6,"method":"tools/call2"})", McpKind::kDeny,
       "tools/call2", "", "method_not_allowed", "6"},
      {R"({"jsonrpc":"2.0","id":8,"result":{}})", McpKind::kDeny, "", "",
       "not_a_request", "8"},
      {R"({"id":9,"method":"tools/call"})", McpKind::kDeny, "", "",
       "not_jsonrpc", "9"},
      {R"({"jsonrpc":"1.0","id":9,"method":"ping"})", McpKind::kDeny, "", "",
       "not_jsonrpc", "9"},
      {R"({"jsonrpc":"2.0","id":9,"method":5})", McpKind::kDeny, "", "",
       "not_jsonrpc", "9"},
      {R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})", McpKind::kDeny,
       "ping", "", "not_jsonrpc", "null"},
      {R"("tools/call")", McpKind::kDeny, "", "", "not_jsonrpc", "null"},
  };
  for (const ClassifyCase& c : cases) {
    SCOPED_TRACE(c.body);
    auto body = ReadMcpBody(c.body, JsonLimits());
    ASSERT_TRUE(body.ok()) << body.status();
    EXPECT_FALSE(body->batch);
    ASSERT_EQ(body->messages.size(), 1u);
    const McpMessage& m = body->messages[0];
    EXPECT_EQ(m.kind, c.kind);
    EXPECT_EQ(m.method, c.method);
    EXPECT_EQ(m.tool, c.tool);
    EXPECT_EQ(m.deny_reason, c.deny_reason);
    EXPECT_EQ(CanonicalJson(m.id), c.id);
  }
}

TEST(ReadMcpBody, ToolCallKeepsParamsForTheGate) {
  auto body = ReadMcpBody(R"({"jsonrpc":"2.0","id":1,"method":"tools/call",)"
                          R"("params":{"arguments":{"b":2,"a":1},"name":"t"}})",
                          JsonLimits());
  ASSERT_TRUE(body.ok());
  EXPECT_EQ(body->messages[0].params_json,
            R"({"arguments":{"a":1,"b":2},"name":"t"})");
}

TEST(ReadMcpBody, BatchClassifiesEveryElement) {
  auto body = ReadMcpBody(
      R"([{"jsonrpc":"2.0","id":1,"method":"ping"},)"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}},)"
      R"(3])",
      JsonLimits());
  ASSERT_TRUE(body.ok());
  EXPECT_TRUE(body->batch);
  ASSERT_EQ(body->messages.size(), 3u);
  EXPECT_EQ(body->messages[0].kind, McpKind::kPassThrough);
  EXPECT_EQ(body->messages[1].kind, McpKind::kToolCall);
  EXPECT_EQ(body->messages[2].kind, McpKind::kDeny);
}

TEST(ReadMcpBody, UnreadableBodiesAreErrorsWithACode) {
  JsonLimits small;
  small.max_bytes = 16;
  const struct {
    const char* body;
    JsonLimits limits;
    const char* code;
  } cases[] = {
      {"", JsonLimits(), "empty_input"},
      {"{\"jsonrpc\":\"2.0\"", JsonLimits(), "truncated_json"},
      {R"({"a":1,"a":2})", JsonLimits(), "duplicate_key"},
      {"[]", JsonLimits(), "invalid_batch"},
      {R"({"jsonrpc":"2.0","id":1} {})", JsonLimits(), "invalid_json"},
      {R"({"jsonrpc":"2.0","id":1,"method":"ping"})", small, "input_too_large"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    auto body = ReadMcpBody(c.body, c.limits);
    ASSERT_FALSE(body.ok());
    EXPECT_EQ(JsonErrorCode(body.status()), c.code);
  }
}

TEST(RequestIdOf, ReadsTheIdOfOneMessageOnly) {
  const struct {
    const char* body;
    const char* id;
  } cases[] = {
      {R"({"jsonrpc":"2.0","id":3,"method":"x"})", "3"},
      {R"({"id":"a"})", "\"a\""},
      {R"({"id":{"x":1}})", "null"},
      {R"([{"id":1}])", "null"},
      {"{", "null"},
      {"", "null"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(CanonicalJson(RequestIdOf(c.body, JsonLimits())), c.id) << c.body;
  }
}

TEST(MatchToolPath, NamesTheTool) {
  const struct {
    const char* tmpl;
    const char* path;
    const char* tool;  // nullptr: no match.
  } cases[] = {
      {"/tools/{name}", "/tools/get_weather", "get_weather"},
      {"/tools/{name}", "/tools/get_weather?units=c", nullptr},
      {"/tools/{name}", "/tools/get_weather#f", nullptr},
      {"/tools/{name}", "/tools/get_weather%3Fa", nullptr},
      {"/tools/{name}", "/tools/get_weather%23a", nullptr},
      {"/tools/{name}", "/tools/get_weather;a", nullptr},
      {"/tools/{name}", "/tools/a%5Cb", nullptr},
      {"/tools/{name}", "/tools/a%2525", nullptr},
      {"/tools/{name}", "/tools/a%0a", nullptr},
      {"/tools/{name}", "/tools/.", nullptr},
      {"/tools/{name}", "/tools/%2E%2E", nullptr},
      {"/tools/{name}", "/tools/a.b", "a.b"},
      {"/tools/{name}", "/tools/a%5Fb", "a_b"},
      // Not UTF-8, escaped or raw: refused, never read as U+FFFD.
      {"/tools/{name}", "/tools/get%FFweather", nullptr},
      {"/tools/{name}", "/tools/get\xC3weather", nullptr},
      {"/tools/{name}", "/tools/caf%C3%A9", "caf\xC3\xA9"},
      {"/api/{name}/invoke", "/api/send/invoke", "send"},
      {"/tools/{name}", "/tools/", nullptr},
      {"/tools/{name}", "/tools/a/b", nullptr},
      {"/tools/{name}", "/tools/a%2Fb", nullptr},
      {"/tools/{name}", "/tools/a%zz", nullptr},
      {"/tools/{name}", "/other/a", nullptr},
      {"/api/{name}/invoke", "/api/send", nullptr},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.path);
    auto tool = MatchToolPath(c.tmpl, c.path);
    if (c.tool == nullptr) {
      EXPECT_EQ(tool.status().code(), absl::StatusCode::kNotFound);
    } else {
      ASSERT_TRUE(tool.ok()) << tool.status();
      EXPECT_EQ(*tool, c.tool);
    }
  }
}

TEST(MatchToolPath, BadTemplateIsInvalidArgument) {
  for (const char* tmpl : {"/tools/", "/{name}/{name}", ""}) {
    EXPECT_EQ(MatchToolPath(tmpl, "/tools/x").status().code(),
              absl::StatusCode::kInvalidArgument)
        << tmpl;
  }
}

TEST(ReadMcpBody, DuplicateIdsInABatchAreEachRefused) {
  auto body = ReadMcpBody(
      R"([{"jsonrpc":"2.0","id":1,"method":"ping"},)"
      R"({"jsonrpc":"2.0","id":"1","method":"ping"},)"
      R"({"jsonrpc":"2.0","method":"notifications/a"},)"
      R"({"jsonrpc":"2.0","method":"notifications/b"},)"
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call",)"
      R"("params":{"name":"t","arguments":{}}}])",
      JsonLimits());
  ASSERT_TRUE(body.ok()) << body.status();
  std::vector<std::string> reasons;
  for (const McpMessage& m : body->messages) reasons.push_back(m.deny_reason);
  // 1 twice; and 1 beside "1": a client may read them as one id.
  EXPECT_EQ(reasons, (std::vector<std::string>{"duplicate_id", "duplicate_id",
                                               "", "", "duplicate_id"}));
  EXPECT_EQ(body->messages[4].kind, McpKind::kDeny);
  EXPECT_EQ(CanonicalJson(body->messages[4].id), "1");
}

TEST(ReadMcpBody, NumbersJsonParseReadsOtherwiseAreUnreadable) {
  const struct {
    const char* body;
    const char* pointer;  // nullptr: read.
  } cases[] = {
      {R"({"a":9007199254740993})", "/a"},
      {R"({"a":[1,{"b~/":-9007199254740993}]})", "/a/1/b~0~1"},
      {R"({"a":18446744073709551615})", "/a"},
      {R"({"a":9223372036854775807})", "/a"},
      {R"({"a":9007199254740992})", nullptr},
      {R"({"a":-9223372036854775808})", nullptr},
      {R"({"a":18446744073709549568})", nullptr},
      {R"({"a":0.1,"b":1e300})", nullptr},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    auto read = ReadMeshJson(c.body, JsonLimits());
    if (c.pointer == nullptr) {
      EXPECT_TRUE(read.ok()) << read.status();
      continue;
    }
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(JsonErrorCode(read.status()), "number_inexact");
    EXPECT_EQ(JsonErrorPointer(read.status()), c.pointer);
  }
}

TEST(ReadMcpBody, ToolCallKeepsItsArgumentsForTheCheckAfter) {
  auto body = ReadMcpBody(R"({"jsonrpc":"2.0","id":1,"method":"tools/call",)"
                          R"("params":{"arguments":{"b":2,"a":1},"name":"t"}})",
                          JsonLimits());
  ASSERT_TRUE(body.ok());
  EXPECT_EQ(body->messages[0].arguments_json, R"({"a":1,"b":2})");
}

TEST(QueryOrFragment, AnyQuestionMarkOrHash) {
  EXPECT_FALSE(QueryOrFragment("/tools/a"));
  EXPECT_FALSE(QueryOrFragment("/tools/a%3F"));
  for (const char* p : {"/tools/a?", "/tools/a?b=c", "/tools/a#", "/t#x?y"}) {
    EXPECT_TRUE(QueryOrFragment(p)) << p;
  }
}

TEST(CheckBodyHeaders, OnlyJsonInUtf8AndNoCoding) {
  const struct {
    std::optional<std::string> type, coding;
    const char* reason;  // "" when accepted.
  } cases[] = {
      {std::nullopt, std::nullopt, ""},
      {"application/json", std::nullopt, ""},
      {"", "", ""},
      {"APPLICATION/JSON ; charset=UTF-8", "Identity", ""},
      {"application/json; charset=\"utf-8\"; q=1", std::nullopt, ""},
      {"application/json;;charset=utf-8;", std::nullopt, ""},
      {"application/json; charset=utf-7", std::nullopt,
       "unsupported_content_type"},
      {"application/json; charset=utf8", std::nullopt,
       "unsupported_content_type"},
      {"application/json; charset=\"utf-8", std::nullopt,
       "unsupported_content_type"},
      {"application/json; charset=utf-8; CHARSET=utf-8", std::nullopt,
       "unsupported_content_type"},
      {"application/json,text/plain", std::nullopt,
       "unsupported_content_type"},
      {"application/jsonx", std::nullopt, "unsupported_content_type"},
      {"application/json x", std::nullopt, "unsupported_content_type"},
      {"application/json; =x", std::nullopt, "unsupported_content_type"},
      {"text/json", std::nullopt, "unsupported_content_type"},
      {"application/json", "gzip", "unsupported_content_encoding"},
      {"application/json", "br", "unsupported_content_encoding"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.type.value_or("(none)") + " / " +
                 c.coding.value_or("(none)"));
    auto refused = CheckBodyHeaders(c.type, c.coding);
    if (*c.reason == '\0') {
      EXPECT_FALSE(refused.has_value()) << refused->message;
    } else {
      ASSERT_TRUE(refused.has_value());
      EXPECT_EQ(refused->reason, c.reason);
    }
  }
}

}  // namespace
}  // namespace mesh
}  // namespace toolgate
