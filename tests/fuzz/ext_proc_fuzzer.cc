// The mesh's answer gate end to end: Envoy ext_proc streams through
// server::ExtProcSession (and core/mesh's readers) with a real Engine and
// a snapshot of two tools (an MCP one, a REST one; output schemas).
//
// Input: one option byte, then the tool's answer body.
//   bits 0-1  content type: application/json, text/event-stream,
//             text/event-stream with a charset, text/html
//   bits 2-3  request: an MCP tools/call (ext_authz named its tool), a
//             REST call (tool named, JSON arguments), an MCP ping (nothing
//             named), a REST body that looks like a JSON-RPC ping (tool
//             named)
//   bit 4     HTTP 500 instead of 200
//   bit 5     the answer in two pieces (the first not the last)
//   bits 6-7  the request body in 1, 2, 3 or 7 pieces
//
// Invariants (envoy_ext_proc.h, core/mesh/sse_reader.h, docs/mesh.md):
//  * every reply is a CONTINUE of its phase or an immediate 502/413 whose
//    body holds a toolgate error code (-32042..-32044);
//  * nothing unchecked passes: an answer of a call ext_authz named (or an
//    MCP tools/call) that goes on is one the engine judged VALID, and only
//    when it came whole, as HTTP 2xx for MCP; an MCP ping's answer always
//    goes on, unchecked;
//  * an MCP SSE answer that goes on is read alike by the two readings
//    below (whatever toolgate's own reader says);
//  * an SSE body toolgate reads is read the same by the WHATWG parser
//    (BOM dropped, lines on CRLF/CR/LF, an open last event dropped) and by
//    httpx-style str.splitlines reading (BOM kept, \x0b \x0c \x1c-\x1e
//    U+0085 U+2028 U+2029 also break lines): the same events of type
//    message with data. Checked on every body, whatever the content type;
//  * the same stream twice ends the same way (the answer's fate and code).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
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
 {"name":"lookup","side_effect":"read","input_schema":{"type":"object"},
  "output_format":"json","output_schema":{"type":"object",
   "properties":{"tier":{"type":"string","enum":["free","pro"]}},
   "required":["tier"]}}]})";

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

// ---- The reference readings of an SSE body (valid UTF-8 here).

// The length of a line break at `s[i]` for str.splitlines beyond CR and
// LF, else 0.
size_t ExtraBreak(absl::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c == 0x0b || c == 0x0c || (c >= 0x1c && c <= 0x1e)) return 1;
  if (absl::StartsWith(s.substr(i), "\xC2\x85")) return 2;
  if (absl::StartsWith(s.substr(i), "\xE2\x80\xA8") ||
      absl::StartsWith(s.substr(i), "\xE2\x80\xA9")) {
    return 3;
  }
  return 0;
}

// Lines as a reader splits them: `splitlines` also breaks on ExtraBreak
// and keeps a last line without a break (httpx flushes it; the WHATWG
// parser drops it).
std::vector<std::string> Lines(absl::string_view s, bool splitlines) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t i = 0; i < s.size();) {
    size_t len = s[i] == '\n' || s[i] == '\r' ? 1 : 0;
    if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') len = 2;
    if (len == 0 && splitlines) len = ExtraBreak(s, i);
    if (len == 0) {
      ++i;
      continue;
    }
    lines.emplace_back(s.substr(start, i - start));
    i += len;
    start = i;
  }
  if (splitlines && start < s.size()) lines.emplace_back(s.substr(start));
  return lines;
}

// The message events' non-empty data (the WHATWG field rules; httpx-sse's
// extra empty dispatches are empty and so left out alike).
std::vector<std::string> Events(const std::vector<std::string>& lines) {
  std::vector<std::string> events;
  std::string data, type;
  bool has_data = false;
  for (const std::string& line : lines) {
    if (line.empty()) {
      if (has_data && !data.empty() && (type.empty() || type == "message")) {
        events.push_back(data);
      }
      data.clear();
      type.clear();
      has_data = false;
      continue;
    }
    if (line[0] == ':') continue;
    const size_t colon = line.find(':');
    const std::string field = line.substr(0, colon);
    std::string value =
        colon == std::string::npos ? "" : line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.erase(0, 1);
    if (field == "data") {
      if (has_data) data += "\n";
      data += value;
      has_data = true;
    } else if (field == "event") {
      type = value;
    }
  }
  return events;
}

void CheckSseDifferential(absl::string_view body) {
  absl::StatusOr<std::vector<std::string>> ours = mesh::ReadSseEvents(body);
  if (!ours.ok()) return;
  absl::string_view unbommed = body;
  absl::ConsumePrefix(&unbommed, "\xEF\xBB\xBF");
  FUZZ_CHECK(Events(Lines(unbommed, false)) == *ours,
             "the WHATWG parser reads other events (%zu ours)", ours->size());
  FUZZ_CHECK(Events(Lines(body, true)) == *ours,
             "str.splitlines reading gives other events (%zu ours)",
             ours->size());
}

// ---- One ext_proc stream.

ProcessingRequest Headers(bool request,
                          std::vector<std::pair<const char*, std::string>> h) {
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

struct Ending {
  bool passed = false;  // The answer went on.
  int code = 0;         // The JSON-RPC error code of a refusal.
  std::string decision;
};

// The JSON-RPC error code of a refusal; 0 for a CONTINUE.
int CheckReply(const ProcessingResponse& reply, bool done) {
  FUZZ_CHECK(done == reply.has_immediate_response(), "done without a refusal");
  if (!done) return 0;
  const auto& immediate = reply.immediate_response();
  const int status = immediate.status().code();
  FUZZ_CHECK(status == 502 || status == 413, "refused with HTTP %d", status);
  absl::StatusOr<Json> body = ParseStrictJson(immediate.body());
  FUZZ_CHECK(body.ok() && body->contains("error"), "a refusal without error");
  const int code = (*body)["error"].value("code", 0);
  FUZZ_CHECK(code <= -32042 && code >= -32044, "error code %d", code);
  return code;
}

Ending RunStream(uint8_t options, absl::string_view answer) {
  Fixture& f = Shared();
  server::ExtProcSession session(&f.engine, &f.grants);
  const int request_kind = (options >> 2) & 3;
  static const char* const kTypes[] = {"application/json", "text/event-stream",
                                       "text/event-stream; charset=utf-8",
                                       "text/html"};
  static const char* const kBodies[] = {
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_customer","arguments":{}}})",
      R"({"q":"x"})", R"({"jsonrpc":"2.0","id":7,"method":"ping"})",
      R"({"jsonrpc":"2.0","id":"c1","method":"ping"})"};
  static const char* const kNamed[] = {"get_customer", "lookup", "", "lookup"};
  std::vector<ProcessingRequest> messages;
  messages.push_back(
      Headers(true, {{":method", "POST"},
                     {"x-toolgate-snapshot", f.snapshot},
                     {"x-toolgate-tool", kNamed[request_kind]}}));
  const absl::string_view request_body = kBodies[request_kind];
  static const size_t kPieces[] = {1, 2, 3, 7};
  const size_t pieces = kPieces[options >> 6];
  const size_t step = (request_body.size() + pieces - 1) / pieces;
  for (size_t at = 0; at < request_body.size(); at += step) {
    messages.push_back(Body(true, request_body.substr(at, step),
                            at + step >= request_body.size()));
  }
  messages.push_back(Headers(false, {{":status", options & 16 ? "500" : "200"},
                                     {"content-type", kTypes[options & 3]}}));
  if (options & 32) {
    messages.push_back(Body(false, answer.substr(0, answer.size() / 2), false));
    messages.push_back(Body(false, answer.substr(answer.size() / 2), true));
  } else {
    messages.push_back(Body(false, answer, true));
  }
  Ending ending;
  for (const ProcessingRequest& m : messages) {
    bool done = false;
    const ProcessingResponse reply = session.Step(m, &done);
    ending.code = CheckReply(reply, done);
    if (done) {
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
  CheckSseDifferential(answer);

  const Ending ending = RunStream(options, answer);
  const int request_kind = (options >> 2) & 3;
  if (request_kind == 2) {  // An MCP ping: nothing named, nothing checked.
    FUZZ_CHECK(ending.passed && ending.decision == "PASS_THROUGH",
               "a ping's answer stopped (%d)", ending.code);
  } else if (ending.passed) {
    FUZZ_CHECK(ending.decision == "VALID", "an answer went on as %s",
               ending.decision.c_str());
    FUZZ_CHECK(!(options & 32), "an answer in pieces went on");
    if (request_kind == 0) {
      FUZZ_CHECK(!(options & 16) && (options & 3) != 3,
                 "an MCP answer went on as HTTP 500 or text/html");
      if (options & 3) {
        // Whatever toolgate's reader says: the clients read it alike.
        absl::string_view unbommed = answer;
        absl::ConsumePrefix(&unbommed, "\xEF\xBB\xBF");
        FUZZ_CHECK(
            Events(Lines(unbommed, false)) == Events(Lines(answer, true)),
            "an SSE answer went on that clients read differently");
      }
    }
  }
  const Ending again = RunStream(options, answer);
  FUZZ_CHECK(again.passed == ending.passed && again.code == ending.code,
             "the same stream ended otherwise (%d vs %d)", again.code,
             ending.code);
  return 0;
}
