#include "core/mesh/stdio_message.h"

#include <string>

#include "gtest/gtest.h"

namespace toolgate {
namespace mesh {
namespace {

struct Case {
  const char* message;
  StdioKind kind;
  const char* method;
  const char* id_key;
  const char* invalid_reason;
};

TEST(ClassifyStdioMessage, EachKindOnlyWithExactlyItsMembers) {
  const Case cases[] = {
      {R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}})",
       StdioKind::kRequest, "tools/call", "1", ""},
      {R"({"jsonrpc":"2.0","id":"a","method":"ping"})", StdioKind::kRequest,
       "ping", "\"a\"", ""},
      {R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
       StdioKind::kNotification, "notifications/initialized", "", ""},
      {R"({"jsonrpc":"2.0","method":"x","params":[1]})",
       StdioKind::kNotification, "x", "", ""},
      {R"({"jsonrpc":"2.0","id":7,"result":{}})", StdioKind::kResponse, "",
       "7", ""},
      {R"({"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"m"}})",
       StdioKind::kResponse, "", "7", ""},
      {R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}})",
       StdioKind::kResponse, "", "", ""},
      // A request and a response at once: a host could take it for the
      // answer to its call while the proxy passed it as a request.
      {R"({"jsonrpc":"2.0","id":7,"method":"x","result":{}})",
       StdioKind::kInvalid, "", "7", "ambiguous_message"},
      {R"({"jsonrpc":"2.0","id":7,"method":"x","error":{}})",
       StdioKind::kInvalid, "", "7", "ambiguous_message"},
      {R"({"jsonrpc":"2.0","id":7,"result":{},"error":{}})",
       StdioKind::kInvalid, "", "7", "ambiguous_message"},
      {R"({"jsonrpc":"2.0","id":7})", StdioKind::kInvalid, "", "7",
       "ambiguous_message"},
      {R"({"jsonrpc":"2.0","id":7,"method":"x","extra":1})",
       StdioKind::kInvalid, "", "7", "unexpected_member"},
      {R"({"jsonrpc":"2.0","id":7,"result":{},"extra":1})",
       StdioKind::kInvalid, "", "7", "unexpected_member"},
      {R"({"jsonrpc":"2.0","id":1.5,"method":"x"})", StdioKind::kInvalid, "",
       "", "invalid_id"},
      {R"({"jsonrpc":"2.0","id":null,"method":"x"})", StdioKind::kInvalid, "",
       "", "invalid_id"},
      {R"({"jsonrpc":"2.0","id":[1],"result":{}})", StdioKind::kInvalid, "",
       "", "invalid_id"},
      {R"({"jsonrpc":"2.0","id":null,"result":{}})", StdioKind::kInvalid, "",
       "", "invalid_id"},
      {R"({"jsonrpc":"2.0","id":1,"method":5})", StdioKind::kInvalid, "", "1",
       "invalid_method"},
      {R"({"jsonrpc":"2.0","id":1,"method":""})", StdioKind::kInvalid, "", "1",
       "invalid_method"},
      {R"({"jsonrpc":"2.0","id":1,"method":"x","params":"p"})",
       StdioKind::kInvalid, "", "1", "invalid_params"},
      {R"({"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}})",
       StdioKind::kInvalid, "", "1", "invalid_error"},
      {R"({"jsonrpc":"2.0","id":1,"error":{"code":1}})", StdioKind::kInvalid,
       "", "1", "invalid_error"},
      {R"({"jsonrpc":"1.0","id":1,"method":"x"})", StdioKind::kInvalid, "",
       "1", "not_jsonrpc"},
      {R"({"id":1,"method":"x"})", StdioKind::kInvalid, "", "1",
       "not_jsonrpc"},
      {R"({"jsonrpc":"2.0"})", StdioKind::kInvalid, "", "", "not_jsonrpc"},
      {R"([1])", StdioKind::kInvalid, "", "", "not_jsonrpc"},
      {R"("x")", StdioKind::kInvalid, "", "", "not_jsonrpc"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Json> json = ParseStrictJson(c.message);
    ASSERT_TRUE(json.ok()) << c.message;
    const StdioMessage m = ClassifyStdioMessage(*json);
    EXPECT_EQ(m.kind, c.kind) << c.message;
    EXPECT_EQ(m.method, c.method) << c.message;
    EXPECT_EQ(m.id_key, c.id_key) << c.message;
    EXPECT_EQ(m.invalid_reason, c.invalid_reason) << c.message;
  }
}

TEST(ClassifyStdioMessage, ResponseSaysResultOrError) {
  EXPECT_TRUE(ClassifyStdioMessage(
                  *ParseStrictJson(R"({"jsonrpc":"2.0","id":1,"result":5})"))
                  .has_result);
  EXPECT_FALSE(
      ClassifyStdioMessage(
          *ParseStrictJson(
              R"({"jsonrpc":"2.0","id":1,"error":{"code":1,"message":""}})"))
          .has_result);
}

}  // namespace
}  // namespace mesh
}  // namespace toolgate
