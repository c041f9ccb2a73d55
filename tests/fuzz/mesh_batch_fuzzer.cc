// The mesh's decision on a request body (core/mesh/mcp_decide.h, what
// Envoy's ext_authz Check answers): JSON-RPC bodies, single and batch,
// generated from the input (or the input itself), decided in a fresh run
// of a snapshot whose tools carry the policies a batch could slip past:
// one call per turn (transfer), a call budget of 2 per run (notify), a
// human's approval (wire), a coercion (order), HTML stripping (post).
//
// Input: one option byte (bit 0: a batch; bit 1: the rest of the input is
// the body as it is; bit 2: an approved approval of wire {"amount":1} is
// presented; bit 3: stateless, no run; bit 4: a REST route, the path and
// body generated), then the bytes the generator reads.
//
// Invariants:
//  * nothing unchecked passes: an allowed body is strict JSON of JSON-RPC
//    2.0 requests and notifications, each tools/call or a pass-through
//    method, ids strings or safe integers and never twice; its tools/calls
//    (in order: name, canonical arguments) are exactly the calls of ONE
//    ValidateToolCall record decided ALLOW with forward_as_sent, as its
//    payload holds them; without tools/call, no decision at all;
//  * a batch is one turn: at most one ValidateToolCall per body, never an
//    ALLOW record for a denied body; an allowed turn holds at most one
//    transfer and at most one wire, and a wire only with the approval;
//  * a denied body spends nothing: afterwards the run's notify budget and
//    the presented approval are as they were (an allowed one spends one
//    per notify call, and the approval exactly when it ran wire);
//  * a denied body answers every message: one error per message of a
//    batch, in order, each with a code and a reason;
//  * REST: allowed only for a path without '?' or '#' naming (decoded) the
//    tool decided, with the body as its arguments.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/engine/engine.h"
#include "core/gate/calls.h"
#include "core/mesh/engine_decider.h"
#include "core/mesh/mcp_gate.h"
#include "core/mesh/mcp_request.h"
#include "tests/fuzz/fuzz_support.h"

namespace toolgate {
namespace {

constexpr char kManifest[] = R"({"toolgate": "v1", "tools": [
 {"name": "get_account", "side_effect": "read", "input_schema": {"type":
  "object", "properties": {"id": {"type": "string"}, "n": {"type":
  "integer"}}, "required": ["id"], "additionalProperties": false}},
 {"name": "transfer", "side_effect": "write", "policy": {"parallel": false},
  "input_schema": {"type": "object", "properties": {"amount": {"type":
  "integer"}}, "required": ["amount"]}},
 {"name": "notify", "side_effect": "write", "policy": {"max_calls_per_run":
  2}, "input_schema": {"type": "object", "properties": {"to": {"type":
  "string"}}, "required": ["to"]}},
 {"name": "wire", "side_effect": "destructive", "policy":
  {"requires_approval": true}, "input_schema": {"type": "object",
  "properties": {"amount": {"type": "integer"}}, "required": ["amount"]}},
 {"name": "order", "side_effect": "write", "policy": {"coerce":
  {"/quantity": "integer_from_string"}}, "input_schema": {"type": "object",
  "properties": {"quantity": {"type": "integer"}}, "required":
  ["quantity"]}},
 {"name": "post", "side_effect": "write", "policy": {"arguments": {"/text":
  {"kind": "text", "strip_html": true}}}, "input_schema": {"type":
  "object", "properties": {"text": {"type": "string"}}, "required":
  ["text"]}}]})";

constexpr int64_t kMaxSafe = (int64_t{1} << 53) - 1;
constexpr int kBudget = 2;
const char kWireApproved[] = R"({"amount":1})";

struct Fixture {
  std::vector<AuditRecord> records;
  Engine engine;
  std::string snapshot_id;
  mesh::EngineDecider decider{&engine};

  Fixture()
      : engine(Options(), [this](const AuditRecord& r) {
          records.push_back(r);
          return true;
        }) {}

  static EngineOptions Options() {
    EngineOptions o;
    o.audit_payloads = true;
    // Every input may ask for approvals; a long run must not fill the
    // store (a full store is an engine error: a deny, no approval).
    o.max_approvals = size_t{1} << 20;
    o.approval_ttl_seconds = 120;
    return o;
  }
};

// The one MCP path, over the engine (as ext_authz decides).
mesh::McpGate Gate(Fixture& f) {
  return mesh::McpGate(&f.decider, mesh::McpLimitsFor(f.engine.options()));
}

Fixture& Shared() {
  static Fixture* const kFixture = [] {
    auto* f = new Fixture;
    auto s = f->engine.CreateSnapshot(kManifest, ManifestFormat::kAuto, "");
    FUZZ_CHECK(s.ok(), "manifest: %s",
               std::string(s.status().message()).c_str());
    f->snapshot_id = (*s)->id();
    return f;
  }();
  return *kFixture;
}

// The generator's bytes; zeros once they run out.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Next() {
    if (size_ == 0) return 0;
    --size_;
    return *data_++;
  }
  std::string Rest() const {
    return std::string(reinterpret_cast<const char*>(data_), size_);
  }

 private:
  const uint8_t* data_;
  size_t size_;
};

const char* const kTools[] = {"get_account", "transfer", "notify", "wire",
                              "order",       "post",     "nope"};

Json Arguments(const std::string& tool, uint8_t b) {
  const int v = b % 4;
  if (tool == "get_account") {
    const Json variants[] = {
        {{"id", "A-1"}}, Json::object(), {{"id", 1}},
        {{"id", "A"}, {"n", uint64_t{9007199254740993u}}}};
    return variants[v];
  }
  if (tool == "transfer" || tool == "wire") {
    const Json variants[] = {{{"amount", 1}}, {{"amount", 2}},
                             {{"amount", "1"}}, Json::object()};
    return variants[v];
  }
  if (tool == "notify") {
    return v == 3 ? Json{{"to", 5}} : Json{{"to", "ops"}};
  }
  if (tool == "order") {
    return v % 2 == 0 ? Json{{"quantity", 5}} : Json{{"quantity", "5"}};
  }
  if (tool == "post") {
    const Json variants[] = {{{"text", "hi"}}, {{"text", "<b>hi</b>"}},
                             {{"text", "a &amp; b"}}, {{"text", 1}}};
    return variants[v];
  }
  return Json::object();
}

Json Params(Bytes& in) {
  const std::string tool = kTools[in.Next() % 7];
  Json args = Arguments(tool, in.Next());
  switch (in.Next() % 16) {
    case 0:
      return nullptr;  // No params member.
    case 1:
      return Json::array({{{"type", "function"},
                           {"function",
                            {{"name", tool}, {"arguments", args.dump()}}}}});
    case 2:
      return {{"tool_calls",
               Json::array({{{"type", "function"},
                             {"function",
                              {{"name", tool}, {"arguments", args.dump()}}}}})}};
    case 3:
      return {{"name", tool}};
    case 4:
      return {{"name", tool},
              {"arguments", args},
              {"_meta", {{"name", "wire"}, {"arguments", kWireApproved}}}};
    case 5:
      return {{"name", 7}, {"arguments", args}};
    case 6:
      return {{"name", tool}, {"arguments", args}, {"_meta", {{"p", 1}}}};
    default:
      return {{"name", tool}, {"arguments", std::move(args)}};
  }
}

// Sets the message's id from the generator, or leaves none.
void SetId(Bytes& in, Json* m) {
  const uint8_t b = in.Next();
  switch (b % 8) {
    case 4:
      (*m)["id"] = "s" + std::to_string((b >> 3) % 3);
      return;
    case 5:
      return;  // A notification.
    case 6:
      (*m)["id"] = nullptr;
      return;
    case 7: {
      const Json odd[] = {1.5, uint64_t{1} << 53, true, "1"};
      (*m)["id"] = odd[(b >> 3) % 4];
      return;
    }
    default:
      (*m)["id"] = (b >> 3) % 3;
  }
}

Json Message(Bytes& in) {
  Json m = {{"jsonrpc", "2.0"}};
  const uint8_t kind = in.Next() % 10;
  SetId(in, &m);
  if (kind <= 5) {
    m["method"] = "tools/call";
    Json params = Params(in);
    if (!params.is_null()) m["params"] = std::move(params);
  } else if (kind == 6) {
    m["method"] = "ping";
  } else if (kind == 7) {
    m["method"] = "notifications/progress";
    m.erase("id");
  } else if (kind == 8) {
    m["method"] = "sampling/createMessage";
  } else {
    m["result"] = Json::object();
  }
  return m;
}

std::string Body(uint8_t options, Bytes& in) {
  if (options & 2) return in.Rest();
  if (!(options & 1)) return Message(in).dump();
  Json batch = Json::array();
  const int n = 1 + in.Next() % 6;
  for (int i = 0; i < n; ++i) batch.push_back(Message(in));
  return batch.dump();
}

using Calls = std::vector<std::pair<std::string, std::string>>;

// The calls of the one ALLOW record of this decision, from its payload.
Calls DecidedCalls(const Fixture& f) {
  std::vector<const AuditRecord*> decisions;
  for (const AuditRecord& r : f.records) {
    if (r.rpc == "ValidateToolCall") decisions.push_back(&r);
  }
  FUZZ_CHECK(decisions.size() == 1, "%zu decisions for an allowed call",
             decisions.size());
  const AuditRecord& r = *decisions[0];
  FUZZ_CHECK(r.decision == "ALLOW", "allowed on a %s record",
             r.decision.c_str());
  FUZZ_CHECK(r.payload.value("forward_as_sent", false),
             "decided without forward_as_sent");
  const std::string output = r.payload.value("native_json", "");
  RawCalls read = ReadNativeCalls(output, fuzz::RereadLimits());
  FUZZ_CHECK(read.error.ok(), "ALLOW record unreadable: %s",
             read.error.message.c_str());
  Calls out;
  for (const RawCall& c : read.calls) {
    FUZZ_CHECK(c.error.ok(), "ALLOW record with an unreadable call");
    out.emplace_back(c.name, CanonicalJson(c.arguments));
  }
  return out;
}

// What a reader of the allowed body runs: every tools/call's name and
// arguments, checked to be JSON-RPC toolgate lets through.
Calls SentCalls(const std::string& body) {
  absl::StatusOr<Json> doc = ParseStrictJson(body, fuzz::RereadLimits());
  FUZZ_CHECK(doc.ok(), "allowed a body that is not strict JSON");
  const Json messages = doc->is_array() ? *doc : Json::array({*doc});
  FUZZ_CHECK(!messages.empty(), "allowed an empty batch");
  Calls out;
  std::vector<std::string> ids;
  for (const Json& m : messages) {
    FUZZ_CHECK(m.is_object() && m.value("jsonrpc", "") == "2.0" &&
                   m.contains("method") && m["method"].is_string(),
               "allowed a message that is not a JSON-RPC request: %s",
               m.dump().substr(0, 200).c_str());
    if (auto id = m.find("id"); id != m.end()) {
      const bool safe =
          id->is_string() ||
          (id->is_number_unsigned()
               ? id->get<uint64_t>() <= static_cast<uint64_t>(kMaxSafe)
               : id->is_number_integer() && id->get<int64_t>() <= kMaxSafe &&
                     id->get<int64_t>() >= -kMaxSafe);
      FUZZ_CHECK(safe, "allowed id %s", id->dump().c_str());
      for (const std::string& seen : ids) {
        FUZZ_CHECK(seen != id->dump(), "allowed id %s twice", seen.c_str());
      }
      ids.push_back(id->dump());
    }
    const std::string method = m["method"];
    if (method != "tools/call") {
      FUZZ_CHECK(mesh::IsPassThroughMethod(method), "allowed method %s",
                 method.c_str());
      continue;
    }
    const Json& p = m.value("params", Json());
    FUZZ_CHECK(p.is_object() && p.value("name", Json()).is_string() &&
                   p.value("arguments", Json()).is_object(),
               "allowed tools/call params %s", p.dump().substr(0, 200).c_str());
    out.emplace_back(p["name"].get<std::string>(), CanonicalJson(p["arguments"]));
  }
  return out;
}

void CheckDenied(const Fixture& f, const mesh::McpDecision& d,
                 const std::string& body) {
  int decisions = 0;
  for (const AuditRecord& r : f.records) {
    if (r.rpc != "ValidateToolCall") continue;
    ++decisions;
    FUZZ_CHECK(r.decision != "ALLOW", "an ALLOW record for a denied body");
  }
  FUZZ_CHECK(decisions <= 1, "%d decisions for one body", decisions);
  absl::StatusOr<Json> doc = ParseStrictJson(body, fuzz::RereadLimits());
  const Json& answer = d.answer;
  const Json& first = answer.is_array() && !answer.empty() ? answer[0] : answer;
  FUZZ_CHECK(first.contains("error") && first["error"]["code"].is_number_integer() &&
                 first["error"]["data"]["reason"].is_string(),
             "a deny without an error: %s", answer.dump().substr(0, 200).c_str());
  if (doc.ok() && doc->is_array() && !doc->empty() && answer.is_array()) {
    FUZZ_CHECK(answer.size() == doc->size(), "%zu answers for %zu messages",
               answer.size(), doc->size());
    for (const Json& a : answer) {
      FUZZ_CHECK(a.contains("error") && a.contains("id") &&
                     a["error"]["data"]["reason"].is_string(),
                 "a batch answer without its error");
    }
  }
}

mesh::McpDecision DecideOne(Fixture& f, const mesh::McpAsk& ask,
                            const std::string& body) {
  f.records.clear();
  return Gate(f).Decide(ask, Gate(f).Read(body));
}

// The budget and the approval the body did not spend are still there.
void Probe(Fixture& f, const mesh::McpAsk& ask, int notify_spent,
           const std::string& approval, bool approval_spent) {
  mesh::McpAsk probe = ask;
  probe.approval_id.clear();
  const std::string call =
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call",)"
      R"("params":{"name":"notify","arguments":{"to":"ops"}}})";
  for (int i = notify_spent; i < kBudget; ++i) {
    FUZZ_CHECK(DecideOne(f, probe, call).allowed,
               "notify budget spent by a body (%d of %d left)", kBudget - i,
               kBudget);
  }
  FUZZ_CHECK(!DecideOne(f, probe, call).allowed, "notify budget overspent");
  if (approval.empty()) return;
  const bool approved =
      !f.engine.ListApprovals(probe.run_id, ApprovalState::kApproved)->empty();
  FUZZ_CHECK(approved == !approval_spent, "approval %s",
             approval_spent ? "not used by its call" : "used by a denied body");
}

// An approved approval of wire {"amount":1} in the run.
std::string Approve(Fixture& f, const mesh::McpAsk& ask) {
  mesh::McpDecision asked = DecideOne(
      f, ask,
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":)"
      R"({"name":"wire","arguments":{"amount":1}}})");
  const std::string id =
      asked.answer["error"]["data"].value("approval_id", std::string());
  if (id.empty()) {
    // Only when toolgate could not ask (a full store): no approval.
    FUZZ_CHECK(asked.label == "ERROR", "no approval asked for (%s)",
               std::string(asked.label).c_str());
    return id;
  }
  FUZZ_CHECK(f.engine.DecideApproval(id, true, "fuzz", "ok").ok(),
             "approval not decided");
  return id;
}

void CheckMcp(Fixture& f, const mesh::McpAsk& ask, const std::string& body,
              const std::string& approval) {
  const mesh::McpDecision d = DecideOne(f, ask, body);
  int notify = 0;
  bool wire_ran = false;
  if (d.allowed) {
    const Calls sent = SentCalls(body);
    if (sent.empty()) {
      for (const AuditRecord& r : f.records) {
        FUZZ_CHECK(r.rpc != "ValidateToolCall", "a decision without a call");
      }
    }
    const Calls decided = sent.empty() ? Calls() : DecidedCalls(f);
    FUZZ_CHECK(sent == decided, "decided %zu calls, the body sends %zu (or "
               "other ones)", decided.size(), sent.size());
    int transfers = 0, wires = 0;
    for (const auto& [name, args] : sent) {
      transfers += name == "transfer";
      wires += name == "wire";
      notify += name == "notify";
      wire_ran = wire_ran || (name == "wire" && args == kWireApproved);
    }
    FUZZ_CHECK(transfers == 0 || sent.size() == 1, "transfer among %zu calls",
               sent.size());
    FUZZ_CHECK(wires <= 1, "%d wires in one turn", wires);
    FUZZ_CHECK(wires == 0 || (wire_ran && !approval.empty()),
               "wire without its approval");
  } else {
    CheckDenied(f, d, body);
  }
  if (!ask.run_id.empty()) Probe(f, ask, notify, approval, wire_ran);
}

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A path segment percent-decoded; nullopt for a broken escape.
std::optional<std::string> PercentDecoded(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = Hex(s[i + 1]), lo = Hex(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

void CheckRest(Fixture& f, const mesh::McpAsk& ask, Bytes& in,
               const std::string& approval) {
  static const char* const kSuffixes[] = {"",   "?a=b", "#f", "%3F", ";x",
                                          "%5Fx", "/x", "%2e", "?"};
  const std::string tool = kTools[in.Next() % 7];
  std::string path = "/tools/" + tool + kSuffixes[in.Next() % 9];
  const std::string body = Arguments(tool, in.Next()).dump();
  if (in.Next() % 4 == 0) path = "/tools/" + in.Rest();
  f.records.clear();
  const mesh::McpDecision d =
      Gate(f).DecideRest(ask, "/tools/{name}", path, body);
  int notify = 0;
  bool wire_ran = false;
  if (d.allowed) {
    FUZZ_CHECK(path.find_first_of("?#") == std::string::npos,
               "allowed a REST path with a query or fragment: %s",
               path.c_str());
    const Calls decided = DecidedCalls(f);
    const std::optional<std::string> name = PercentDecoded(path.substr(7));
    FUZZ_CHECK(decided.size() == 1 && name.has_value() &&
                   decided[0].first == *name &&
                   decided[0].second == CanonicalJson(Json::parse(body)),
               "REST decided %s for %s",
               decided.empty() ? "nothing" : decided[0].first.c_str(),
               path.c_str());
    notify = decided[0].first == "notify";
    wire_ran = decided[0].first == "wire" && decided[0].second == kWireApproved;
  } else {
    CheckDenied(f, d, body);
  }
  if (!ask.run_id.empty()) Probe(f, ask, notify, approval, wire_ran);
}

}  // namespace
}  // namespace toolgate

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolgate;
  if (size < 1) return 0;
  const uint8_t options = data[0];
  Bytes in(data + 1, size - 1);
  Fixture& f = Shared();
  mesh::McpAsk ask;
  ask.snapshot_id = f.snapshot_id;
  ask.source = "envoy_ext_authz";
  OpenedRun run;
  if (!(options & 8)) {
    RunLimits limits;
    limits.max_consecutive_rejects = 1000;  // Rejects are the subject.
    auto opened = f.engine.OpenRun(f.snapshot_id, "fuzz", {}, limits);
    FUZZ_CHECK(opened.ok(), "OpenRun: %s",
               std::string(opened.status().message()).c_str());
    run = *std::move(opened);
    ask.snapshot_id.clear();
    ask.run_id = run.run->id();
    ask.run_token = run.token;
  }
  std::string approval;
  if ((options & 4) && !ask.run_id.empty()) {
    approval = Approve(f, ask);
    ask.approval_id = approval;
  }
  if (options & 16) {
    CheckRest(f, ask, in, approval);
  } else {
    CheckMcp(f, ask, Body(options, in), approval);
  }
  if (!ask.run_id.empty()) {
    FUZZ_CHECK(f.engine.CloseRun(ask.run_id, ask.run_token).ok(), "CloseRun");
  }
  return 0;
}
