#include "bench/engine/payloads.h"

#include <cstdlib>
#include <iostream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace toolgate {
namespace bench {
namespace {

// ordered_json keeps members in the order providers write them.
using OJson = nlohmann::ordered_json;

constexpr char kDescription[] =
    "Customer reports that the refund for order 88123 (duplicate charge on "
    "2024-03-02) has not arrived after 12 business days. They attached the "
    "bank statement and asked for a written confirmation. Previous contact: "
    "chat transcript CH-55121, agent promised a callback that never came.";

OJson CreateTicketArgs(bool valid) {
  if (valid) {
    return {{"title", "Refund not received for order 88123"},
            {"description", kDescription},
            {"priority", "high"},
            {"customer_email", "dana.okafor@example.com"},
            {"tags", {"billing", "refund", "escalated"}}};
  }
  // Four independent mistakes models make: a too-short title, an enum
  // value that is not in the list, a repeated tag, an invented member.
  return {{"title", "Rf"},
          {"description", kDescription},
          {"priority", "critical"},
          {"customer_email", "dana.okafor@example.com"},
          {"tags", {"billing", "refund", "billing"}},
          {"assignee", "tier2"}};
}

std::string OpenAIMessage(bool valid) {
  OJson call = {{"id", "call_Vx3t9QkYp2LmR8sA"},
                {"type", "function"},
                {"function",
                 {{"name", "create_ticket"},
                  {"arguments", CreateTicketArgs(valid).dump()}}}};
  OJson msg = {{"role", "assistant"},
               {"content", nullptr},
               {"tool_calls", OJson::array({call})},
               {"refusal", nullptr}};
  return msg.dump();
}

std::string AnthropicMessage(bool valid) {
  OJson input = valid ? OJson{{"query", "refund not received"},
                              {"status", "open"},
                              {"limit", 20}}
                      : OJson{{"query", ""},
                              {"status", "waiting"},
                              {"limit", "20"}};
  OJson msg = {
      {"id", "msg_01XFDUDYJgAACzvnptvVoYEL"},
      {"type", "message"},
      {"role", "assistant"},
      {"model", "claude-sonnet"},
      {"content",
       {{{"type", "text"},
         {"text", "I'll look for open tickets about refunds that never "
                  "arrived, then summarise them."}},
        {{"type", "tool_use"},
         {"id", "toolu_01A09q90qw90lq917835lq9"},
         {"name", "search_tickets"},
         {"input", input}}}},
      {"stop_reason", "tool_use"},
      {"usage", {{"input_tokens", 812}, {"output_tokens", 64}}}};
  return msg.dump();
}

std::string McpParams(bool valid) {
  OJson args = valid ? OJson{{"customer_id", "CUS-004211"},
                             {"email", "dana.okafor@example.org"}}
                     : OJson{{"customer_id", "4211"},
                             {"email", 42},
                             {"notify", true}};
  return OJson{{"name", "update_customer_email"}, {"arguments", args}}.dump();
}

CallPayload Native(std::string name, std::string snapshot, std::string out,
                   Expect expect) {
  CallPayload p;
  p.name = std::move(name);
  p.snapshot = std::move(snapshot);
  p.output = std::move(out);
  p.expect = expect;
  return p;
}

CallPayload Text(std::string name, std::string out, bool repair,
                 Expect expect) {
  CallPayload p = Native(std::move(name), "tickets", std::move(out), expect);
  p.native = false;
  p.syntax_repair = repair;
  return p;
}

constexpr char kGetTicket[] =
    R"({"name":"get_ticket","arguments":{"ticket_id":"TCK-004211"}})";

// A reasoning model's output: thinking that quotes an example call in a
// fence (a decoy that must not run), then the real call in a fence.
std::string FenceAfterReasoning() {
  std::string text =
      "<think>\nThe user wants the status of their refund. I should not "
      "guess; the ticket number is in their message (TCK-004211). A call "
      "would look like:\n```json\n"
      R"({"name":"get_ticket","arguments":{"ticket_id":"TCK-000000"}})"
      "\n```\nbut with the real id. Searching first is unnecessary because "
      "the id is known. Then I will summarise the latest comment.\n"
      "</think>\nI'll open the ticket you mentioned.\n\n```json\n";
  text += kGetTicket;
  text += "\n```\n";
  return text;
}

std::vector<CallPayload> MakeTextCalls() {
  const std::string tag = std::string("Let me check that ticket.\n<tool_call>\n") +
                          kGetTicket + "\n</tool_call>";
  const std::string react =
      "Thought: The customer asks about refunds that are still open; I "
      "should search before answering.\nAction: search_tickets\n"
      R"(Action Input: {"query": "refund not received", "status": "open", "limit": 20})";
  const std::string bare =
      std::string("Sure, I will call ") + kGetTicket + " and report back.";
  // Single quotes, an unquoted key and a trailing comma: what small
  // open-weight models write.
  const std::string damaged =
      "{'name': 'get_ticket', arguments: {'ticket_id': 'TCK-004211',},}";
  return {Text("text_tag", tag, false, Expect::kAllow),
          Text("text_fence_reasoning", FenceAfterReasoning(), false,
               Expect::kAllow),
          Text("text_react", react, false, Expect::kAllow),
          Text("text_bare", bare, false, Expect::kAllow),
          Text("text_damaged_strict", damaged, false, Expect::kReject),
          Text("text_damaged_repair", damaged, true, Expect::kAllow)};
}

}  // namespace

const std::vector<CallPayload>& NativeCalls() {
  static const auto* kCalls = new std::vector<CallPayload>{
      Native("openai_allow", "tickets", OpenAIMessage(true), Expect::kAllow),
      Native("openai_reject", "tickets", OpenAIMessage(false), Expect::kReject),
      Native("anthropic_allow", "tickets", AnthropicMessage(true),
             Expect::kAllow),
      Native("anthropic_reject", "tickets", AnthropicMessage(false),
             Expect::kReject),
      Native("mcp_allow", "customers", McpParams(true), Expect::kAllow),
      Native("mcp_reject", "customers", McpParams(false), Expect::kReject),
  };
  return *kCalls;
}

namespace {

std::vector<CallPayload> MakeFormatCalls() {
  const std::string prose = "Let me check that ticket.\n";
  const std::string args = R"({"ticket_id":"TCK-004211"})";
  const auto ds = [](const char* token) {
    return absl::StrCat("<\xEF\xBD\x9Ctool\xE2\x96\x81", token,
                        "\xEF\xBD\x9C>");
  };
  const std::vector<std::pair<std::string, std::string>> texts = {
      {"hermes", prose + "<tool_call>\n" + kGetTicket + "\n</tool_call>"},
      {"mistral", prose + "[TOOL_CALLS][" + kGetTicket + "]"},
      {"llama3_json",
       R"(<|python_tag|>{"name":"get_ticket","parameters":)" + args + "}"},
      {"pythonic", "[get_ticket(ticket_id='TCK-004211')]"},
      {"granite", prose + "<|tool_call|>[" + kGetTicket + "]"},
      {"deepseek_v3",
       absl::StrCat(prose, ds("calls\xE2\x96\x81" "begin"),
                    ds("call\xE2\x96\x81" "begin"), "function", ds("sep"),
                    "get_ticket\n```json\n", args, "\n```",
                    ds("call\xE2\x96\x81" "end"),
                    ds("calls\xE2\x96\x81" "end"))},
  };
  std::vector<CallPayload> out;
  for (const auto& [format, text] : texts) {
    CallPayload p = Text("format_" + format, text, false, Expect::kAllow);
    p.text_format = format;
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

const std::vector<CallPayload>& FormatCalls() {
  static const auto* kCalls = new std::vector<CallPayload>(MakeFormatCalls());
  return *kCalls;
}

const std::vector<CallPayload>& TextCalls() {
  static const auto* kCalls = new std::vector<CallPayload>(MakeTextCalls());
  return *kCalls;
}

const CallPayload& CallNamed(const std::string& name) {
  for (const auto* list : {&NativeCalls(), &TextCalls(), &FormatCalls()}) {
    for (const CallPayload& p : *list) {
      if (p.name == name) return p;
    }
  }
  std::cerr << "bench: no payload named " << name << "\n";
  std::abort();
}

}  // namespace bench
}  // namespace toolgate
