#include "core/mesh/testing/mcp_cases.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace toolgate {
namespace mesh {
namespace testing {

const char kManifest[] = R"({"toolgate": "v1", "tools": [
 {"name": "get_customer", "side_effect": "read", "output_format": "mcp",
  "input_schema": {"type": "object", "properties": {"customer_id":
   {"type": "string"}}, "required": ["customer_id"]},
  "output_schema": {"type": "object", "properties": {"tier": {"type":
   "string", "enum": ["free", "pro"]}}, "required": ["tier"]}},
 {"name": "send_note", "side_effect": "write", "output_format": "mcp",
  "input_schema": {"type": "object", "properties": {"to": {"type":
   "string"}}, "required": ["to"]},
  "output_schema": {"type": "object", "properties": {"sent": {"type":
   "boolean"}}, "required": ["sent"]}},
 {"name": "wire", "side_effect": "destructive", "policy":
  {"requires_approval": true}, "input_schema": {"type": "object",
  "properties": {"amount": {"type": "integer"}}, "required": ["amount"]}},
 {"name": "lookup", "side_effect": "read", "output_format": "json",
  "input_schema": {"type": "object"},
  "output_schema": {"type": "object", "properties": {"tier": {"type":
   "string", "enum": ["free", "pro"]}}, "required": ["tier"]}}]})";

namespace msg {

std::string Call(const std::string& id, const std::string& tool,
                 const std::string& args) {
  const std::string head = id.empty() ? R"({"jsonrpc":"2.0",)"
                                      : R"({"jsonrpc":"2.0","id":)" + id + ",";
  return head + R"("method":"tools/call","params":{"name":")" + tool +
         R"(","arguments":)" + args + "}}";
}

std::string Result(const std::string& id, const std::string& result) {
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":)" + result + "}";
}

std::string Batch(const std::vector<std::string>& messages) {
  return "[" + absl::StrJoin(messages, ",") + "]";
}

std::string Sse(const std::vector<std::string>& messages) {
  std::string out;
  for (const std::string& m : messages)
    absl::StrAppend(&out, "data: ", m, "\n\n");
  return out;
}

const char kCustomer[] = R"({"customer_id":"C-1"})";
const char kTo[] = R"({"to":"ops"})";
const char kPing[] = R"({"jsonrpc":"2.0","id":"p","method":"ping"})";
const char kNote[] =
    R"({"jsonrpc":"2.0","method":"notifications/progress","params":{}})";
const char kGood[] =
    R"({"content":[{"type":"text","text":"pro"}],"structuredContent":)"
    R"({"tier":"pro"},"isError":false})";
const char kBad[] =
    R"({"content":[{"type":"text","text":"gold"}],"structuredContent":)"
    R"({"tier":"gold"},"isError":false})";
const char kSent[] =
    R"({"content":[{"type":"text","text":"ok"}],"structuredContent":)"
    R"({"sent":true},"isError":false})";
const char kToolError[] =
    R"({"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"down"}})";

Said Deny(const std::string& id, const std::string& reason) {
  return Said{id, -32042, reason};
}
Said Invalid(const std::string& id) {
  return Said{id, -32043, "invalid_tool_output"};
}
std::vector<Said> Each(const std::vector<std::string>& ids,
                       const std::string& reason) {
  std::vector<Said> out;
  for (const std::string& id : ids) out.push_back(Deny(id, reason));
  return out;
}

}  // namespace msg

using namespace msg;  // NOLINT: the tables read as messages.

namespace {

RequestCase Req(std::string name, std::string body, std::string label,
                std::vector<Said> errors, int decisions) {
  RequestCase c;
  c.name = std::move(name);
  c.body = std::move(body);
  c.allowed = errors.empty();
  c.label = std::move(label);
  c.errors = std::move(errors);
  c.decisions = decisions;
  return c;
}

}  // namespace

const std::vector<RequestCase>& RequestCases() {
  static const auto* const kCases = new std::vector<RequestCase>{
      Req("call", Call("1", "get_customer", kCustomer), "ALLOW", {}, 1),
      Req("invalid arguments",
          Call("1", "get_customer", R"({"customer_id":7})"), "REJECT",
          {{"1", -32602, "invalid_arguments"}}, 1),
      Req("needs approval", Call("1", "wire", R"({"amount":5})"),
          "NEEDS_APPROVAL", {{"1", -32040, "needs_approval"}}, 1),
      Req("ping", kPing, "PASS_THROUGH", {}, 0),
      Req("initialize",
          R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})",
          "PASS_THROUGH", {}, 0),
      Req("other method",
          R"({"jsonrpc":"2.0","id":3,"method":"sampling/createMessage"})",
          "DENIED_REQUEST", {Deny("3", "method_not_allowed")}, 0),
      Req("a response", Result("4", "{}"), "DENIED_REQUEST",
          {Deny("4", "not_a_request")}, 0),
      Req("not json", "{", "DENIED_REQUEST", {Deny("null", "unreadable_body")},
          0),
      Req("inexact number",
          Call("1", "get_customer",
               R"({"customer_id":"C-1","n":9007199254740993})"),
          "DENIED_REQUEST", {Deny("null", "unreadable_body")}, 0),
      Req("no params", R"({"jsonrpc":"2.0","id":1,"method":"tools/call"})",
          "DENIED_REQUEST", {Deny("1", "invalid_params")}, 0),
      Req("empty batch", "[]", "DENIED_REQUEST",
          {Deny("null", "unreadable_body")}, 0),
      Req("batch: one turn",
          Batch({Call("1", "get_customer", kCustomer),
                 Call("2", "send_note", kTo)}),
          "ALLOW", {}, 1),
      Req("batch: a ping and a call",
          Batch({kPing, kNote, Call("1", "get_customer", kCustomer)}), "ALLOW",
          {}, 1),
      Req("batch: notifications only", Batch({kNote, kNote}), "PASS_THROUGH",
          {}, 0),
      Req("batch: one invalid call",
          Batch({Call("1", "get_customer", kCustomer),
                 Call("2", "get_customer", R"({"customer_id":7})")}),
          "REJECT",
          {Deny("1", "batch_denied"), {"2", -32602, "invalid_arguments"}}, 1),
      Req("batch: approval for one call",
          Batch({Call("1", "get_customer", kCustomer),
                 Call("2", "wire", R"({"amount":5})")}),
          "NEEDS_APPROVAL",
          {Deny("1", "batch_denied"), {"2", -32040, "needs_approval"}}, 1),
      Req("batch: duplicate ids",
          Batch({Call("1", "get_customer", kCustomer),
                 Call("1", "send_note", kTo)}),
          "DENIED_REQUEST", Each({"1", "1"}, "duplicate_id"), 0),
      Req("batch: another method",
          Batch(
              {Call("1", "get_customer", kCustomer),
               R"({"jsonrpc":"2.0","id":2,"method":"sampling/createMessage"})"}),
          "DENIED_REQUEST",
          {Deny("1", "batch_denied"), Deny("2", "method_not_allowed")}, 0),
  };
  return *kCases;
}

std::vector<Said> ErrorsOf(const Json& answer) {
  std::vector<Said> out;
  auto one = [&out](const Json& m, bool rest) {
    const Json& e = m.is_object() ? m.value("error", Json()) : Json();
    if (!e.is_object() || (!rest && !m.contains("id"))) {
      out.push_back(Said{"?", 0, CanonicalJson(m)});
      return;
    }
    const Json& data = e.value("data", Json::object());
    out.push_back(Said{rest ? "" : CanonicalJson(m["id"]), e.value("code", 0),
                       data.value("reason", std::string())});
  };
  if (answer.is_array()) {
    for (const Json& m : answer) one(m, false);
  } else {
    one(answer, answer.is_object() && !answer.contains("jsonrpc"));
  }
  return out;
}

std::string ToString(const std::vector<Said>& said) {
  std::string out;
  for (const Said& s : said) {
    absl::StrAppend(&out, "[", s.id, " ", s.code, " ", s.reason, "]");
  }
  return out;
}

}  // namespace testing
}  // namespace mesh
}  // namespace toolgate
