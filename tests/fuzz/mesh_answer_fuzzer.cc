// A JSON-RPC batch's answer through ext_proc (server::ExtProcSession over
// core/mesh's plan and check) with a real Engine: any bytes as the answer
// of a batch ext_authz allowed.
//
// Input: one option byte, then the tool server's answer body.
//   bits 0-1  content type: application/json, text/event-stream,
//             text/event-stream with a charset, text/html
//   bit 2     x-toolgate-route: mcp (else absent: read as before it was)
//   bit 3     HTTP 500 instead of 200
//   bit 4     the answer in two pieces (the first not the last)
//   bits 5-6  the batch: [get_customer 1, send_note "2", ping 3, a
//             notification]; [a notification, get_customer 1];
//             [get_customer 1, get_customer "1"]; [send_note 1, ping "1"]
//   bit 7     the request body in two pieces
//
// Invariants (core/mesh/mcp_answer.h, docs/mesh.md "Batch answers"):
//  * every reply is a CONTINUE of its phase or an immediate 502 whose body
//    is a JSON array with one error per message of the batch, in order,
//    each for that message's id, with a toolgate code (-32042..-32044);
//  * an answer goes on exactly when an independent reading accepts it:
//    whole, HTTP 2xx, JSON (an array of responses, or one) or SSE (read by
//    core/mesh/sse_reader, each event one message, notifications between)
//    in UTF-8; every message with an id answered exactly once by a
//    response (jsonrpc, id and one of result or error, nothing else; ids
//    as JSON values); each tools/call answered by a result that the
//    engine, asked directly, judges VALID for that call's own tool;
//  * the outcome is VALID exactly when it goes on;
//  * the same stream twice ends the same way.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/engine/engine.h"
#include "core/mesh/sse_reader.h"
#include "server/envoy_common.h"
#include "server/envoy_ext_proc.h"
#include "server/mesh_grants.h"
#include "tests/fuzz/fuzz_support.h"

namespace toolgate {
namespace {

using envoy::service::ext_proc::v3::ProcessingRequest;
using envoy::service::ext_proc::v3::ProcessingResponse;

constexpr char kManifest[] = R"({"toolgate":"v1","tools":[
 {"name":"get_customer","side_effect":"read","input_schema":{"type":"object"},
  "output_format":"mcp","output_schema":{"type":"object",
   "properties":{"tier":{"type":"string","enum":["free","pro"]}},
   "required":["tier"]}},
 {"name":"send_note","side_effect":"write","input_schema":{"type":"object"},
  "output_format":"mcp","output_schema":{"type":"object",
   "properties":{"sent":{"type":"boolean"}},"required":["sent"]}}]})";

struct Message {
  Json id;           // Null: a notification.
  std::string tool;  // "" for a ping or a notification.
};

struct Batch {
  std::string body;
  std::vector<Message> messages;
};

const Batch& Batches(int k) {
  static const Batch* const kBatches = [] {
    auto call = [](const std::string& id, const std::string& tool) {
      return absl::StrCat(R"({"jsonrpc":"2.0","id":)", id,
                          R"(,"method":"tools/call","params":{"name":")", tool,
                          R"(","arguments":{}}})");
    };
    auto ping = [](const std::string& id) {
      return absl::StrCat(R"({"jsonrpc":"2.0","id":)", id,
                          R"(,"method":"ping"})");
    };
    const std::string note =
        R"({"jsonrpc":"2.0","method":"notifications/progress","params":{}})";
    return new Batch[4]{
        {absl::StrCat("[", call("1", "get_customer"), ",",
                      call(R"("b")", "send_note"), ",", ping("3"), ",", note,
                      "]"),
         {{1, "get_customer"}, {"b", "send_note"}, {3, ""}, {nullptr, ""}}},
        {absl::StrCat("[", note, ",", call("1", "get_customer"), "]"),
         {{nullptr, ""}, {1, "get_customer"}}},
        {absl::StrCat("[", call("1", "get_customer"), ",",
                      call(R"("1")", "get_customer"), "]"),
         {{1, "get_customer"}, {"1", "get_customer"}}},
        {absl::StrCat("[", call("1", "send_note"), ",", ping(R"("1")"), "]"),
         {{1, "send_note"}, {"1", ""}}},
    };
  }();
  return kBatches[k];
}

struct Fixture {
  Engine engine;
  server::RunGrants grants;
  std::string snapshot;
};

Fixture& Shared() {
  static Fixture* const kFixture = [] {
    auto* f = new Fixture;
    auto s = f->engine.CreateSnapshot(kManifest, ManifestFormat::kToolgate, "");
    FUZZ_CHECK(s.ok(), "manifest: %s",
               std::string(s.status().message()).c_str());
    f->snapshot = (*s)->id();
    return f;
  }();
  return *kFixture;
}

// ---- The independent reading.

bool IsNotification(const Json& m) {
  return m.is_object() && m.contains("method") && !m.contains("id") &&
         m.value("jsonrpc", Json()) == "2.0";
}

// The answer's messages, or nullopt when it cannot be read.
std::optional<std::vector<Json>> Messages(bool sse, absl::string_view body) {
  std::vector<Json> out;
  if (!sse) {
    absl::StatusOr<Json> parsed = ParseStrictJson(body);
    if (!parsed.ok()) return std::nullopt;
    if (!parsed->is_array()) return std::vector<Json>{*parsed};
    for (const Json& m : *parsed) out.push_back(m);
    return out;
  }
  absl::StatusOr<std::vector<std::string>> events = mesh::ReadSseEvents(body);
  if (!events.ok()) return std::nullopt;
  for (const std::string& data : *events) {
    absl::StatusOr<Json> m = ParseStrictJson(data);
    if (!m.ok()) return std::nullopt;
    if (!IsNotification(*m)) out.push_back(*m);
  }
  return out;
}

bool ValidFor(const std::string& tool, const Json& result) {
  ValidateOutputRequest request;
  request.snapshot_id = Shared().snapshot;
  request.tool_name = tool;
  request.content_type = "application/json";
  request.http_status = output::kNoHttpStatus;
  const std::string body = CanonicalJson(result);
  request.body = body;
  request.mode = output::OutputMode::kFailClosed;
  auto checked = Shared().engine.ValidateToolOutput(request);
  return checked.ok() &&
         checked->result.verdict == output::OutputVerdict::kValid;
}

// A batch where a string id that JavaScript's Number() could read as a
// number sits beside a number id: refused before any answer (a client may
// take "1" for 1).
bool IdsClash(const Batch& batch) {
  bool number = false, numeric_string = false;
  for (const Message& m : batch.messages) {
    number |= m.id.is_number();
    if (!m.id.is_string()) continue;
    const std::string s = m.id.get<std::string>();
    numeric_string |= s.empty() || s.find_first_of("0123456789") != s.npos;
  }
  return number && numeric_string;
}

bool Accepts(const Batch& batch, bool sse, absl::string_view body) {
  if (IdsClash(batch)) return false;
  if (body.size() > JsonLimits().max_bytes) return false;
  std::optional<std::vector<Json>> messages = Messages(sse, body);
  if (!messages) return false;
  std::vector<bool> answered(batch.messages.size(), false);
  for (const Json& m : *messages) {
    if (!m.is_object() || m.value("jsonrpc", Json()) != "2.0" ||
        !m.contains("id") || m.contains("result") == m.contains("error")) {
      return false;
    }
    for (const auto& member : m.items()) {
      if (member.key() != "jsonrpc" && member.key() != "id" &&
          member.key() != "result" && member.key() != "error") {
        return false;
      }
    }
    // Ids as JSON values, written alike: 1, 1.0 and "1" are three.
    const std::string id = CanonicalJson(m["id"]);
    size_t k = 0;
    while (k < batch.messages.size() &&
           (batch.messages[k].id.is_null() ||
            CanonicalJson(batch.messages[k].id) != id)) {
      ++k;
    }
    if (k == batch.messages.size() || answered[k]) return false;
    answered[k] = true;
    const std::string& tool = batch.messages[k].tool;
    if (!tool.empty() &&
        (!m.contains("result") || !ValidFor(tool, m["result"]))) {
      return false;
    }
  }
  for (size_t k = 0; k < batch.messages.size(); ++k) {
    if (!batch.messages[k].id.is_null() && !answered[k]) return false;
  }
  return true;
}

// ---- One ext_proc stream.

ProcessingRequest Headers(bool request,
                          std::vector<std::pair<std::string, std::string>> h) {
  ProcessingRequest r;
  auto* headers =
      request ? r.mutable_request_headers() : r.mutable_response_headers();
  for (const auto& [k, v] : h) {
    auto* header = headers->mutable_headers()->add_headers();
    header->set_key(k);
    header->set_raw_value(v);
  }
  return r;
}

ProcessingRequest Body(bool request, absl::string_view bytes, bool end) {
  ProcessingRequest r;
  auto* body = request ? r.mutable_request_body() : r.mutable_response_body();
  body->set_body(std::string(bytes));
  body->set_end_of_stream(end);
  return r;
}

void CheckRefusal(const ProcessingResponse& reply, const Batch& batch) {
  FUZZ_CHECK(reply.immediate_response().status().code() == 502,
             "refused with HTTP %d",
             static_cast<int>(reply.immediate_response().status().code()));
  absl::StatusOr<Json> body =
      ParseStrictJson(reply.immediate_response().body());
  if (IdsClash(batch)) {  // Refused for its request: one error, no ids.
    FUZZ_CHECK(body.ok() && body->contains("error"), "refusal unreadable");
    return;
  }
  FUZZ_CHECK(
      body.ok() && body->is_array() && body->size() == batch.messages.size(),
      "a refusal that is not one error per message");
  for (size_t k = 0; k < batch.messages.size(); ++k) {
    const Json& m = (*body)[k];
    FUZZ_CHECK(m.value("id", Json()) == batch.messages[k].id,
               "error %zu for another id", k);
    const int code = m["error"].value("code", 0);
    FUZZ_CHECK(code <= -32042 && code >= -32044, "error code %d", code);
  }
}

struct Ending {
  bool passed = false;
  std::string refusal;  // Each message's id, code and reason.
  std::string decision;
};

std::string Said(absl::string_view body) {
  std::string out;
  Json all = Json::parse(body);
  if (!all.is_array()) all = Json::array({all});  // One error, no batch.
  for (const Json& m : all) {
    absl::StrAppend(
        &out, CanonicalJson(m["id"]), " ", m["error"].value("code", 0), " ",
        CanonicalJson(m["error"]["data"].value("reason", Json())), ";");
  }
  return out;
}

Ending RunStream(uint8_t options, absl::string_view answer) {
  Fixture& f = Shared();
  const Batch& batch = Batches((options >> 5) & 3);
  server::ExtProcSession session(&f.engine, &f.grants);
  static const char* const kTypes[] = {"application/json", "text/event-stream",
                                       "text/event-stream; charset=utf-8",
                                       "text/html"};
  std::vector<std::pair<std::string, std::string>> request_headers = {
      {":method", "POST"},
      {"x-toolgate-snapshot", f.snapshot},
      {"x-toolgate-tool", ""}};
  if (options & 4) request_headers.push_back({"x-toolgate-route", "mcp"});
  std::vector<ProcessingRequest> messages = {Headers(true, request_headers)};
  const absl::string_view body = batch.body;
  if (options & 128) {
    messages.push_back(Body(true, body.substr(0, body.size() / 2), false));
    messages.push_back(Body(true, body.substr(body.size() / 2), true));
  } else {
    messages.push_back(Body(true, body, true));
  }
  messages.push_back(Headers(false, {{":status", options & 8 ? "500" : "200"},
                                     {"content-type", kTypes[options & 3]}}));
  if (options & 16) {
    messages.push_back(Body(false, answer.substr(0, answer.size() / 2), false));
    messages.push_back(Body(false, answer.substr(answer.size() / 2), true));
  } else {
    messages.push_back(Body(false, answer, true));
  }
  Ending ending;
  for (const ProcessingRequest& m : messages) {
    bool done = false;
    const ProcessingResponse reply = session.Step(m, &done);
    FUZZ_CHECK(done == reply.has_immediate_response(),
               "done without a refusal");
    if (done) {
      CheckRefusal(reply, batch);
      ending.refusal = Said(reply.immediate_response().body());
      ending.decision = std::string(session.TakeOutcome().decision);
      return ending;
    }
  }
  ending.passed = true;
  ending.decision = std::string(session.TakeOutcome().decision);
  return ending;
}

}  // namespace
}  // namespace toolgate

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolgate;
  if (size < 1) return 0;
  const uint8_t options = data[0];
  const absl::string_view answer = fuzz::AsText(data + 1, size - 1);
  const Batch& batch = Batches((options >> 5) & 3);
  const Ending ending = RunStream(options, answer);
  const bool whole = !(options & 16) && !(options & 8) && (options & 3) != 3;
  const bool accepted = whole && Accepts(batch, (options & 3) != 0, answer);
  FUZZ_CHECK(ending.passed == accepted,
             "the answer %s, an independent reading %s it",
             ending.passed ? "went on" : "was refused",
             accepted ? "accepts" : "refuses");
  FUZZ_CHECK((ending.decision == "VALID") == ending.passed,
             "decision %s for an answer that %s", ending.decision.c_str(),
             ending.passed ? "went on" : "was refused");
  const Ending again = RunStream(options, answer);
  FUZZ_CHECK(again.passed == ending.passed && again.refusal == ending.refusal,
             "the same stream ended otherwise");
  return 0;
}
