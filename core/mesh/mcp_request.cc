#include "core/mesh/mcp_request.h"

#include <cstdint>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "core/json/utf8.h"

namespace toolgate {
namespace mesh {
namespace {

constexpr absl::string_view kPassThrough[] = {
    "initialize",       "ping",           "tools/list",
    "resources/list",   "resources/read", "resources/templates/list",
    "prompts/list",     "prompts/get",    "completion/complete",
    "logging/setLevel",
};

McpMessage Deny(Json id, std::string method, absl::string_view reason) {
  McpMessage m;
  m.kind = McpKind::kDeny;
  m.id = std::move(id);
  m.method = std::move(method);
  m.deny_reason = std::string(reason);
  return m;
}

// The largest integer a JavaScript number holds exactly, and every one
// below it (Number.MAX_SAFE_INTEGER): the MCP SDK's ids are these.
constexpr int64_t kMaxSafeInteger = (int64_t{1} << 53) - 1;

// A JSON-RPC id as the MCP SDK takes it: a string or a safe integer. An
// absent id (a notification) is read as null; an explicit null is not an id.
bool ValidId(const Json& id) {
  if (id.is_string()) return true;
  if (id.is_number_unsigned()) {
    return id.get<uint64_t>() <= static_cast<uint64_t>(kMaxSafeInteger);
  }
  if (id.is_number_integer()) {
    const int64_t n = id.get<int64_t>();
    return n >= -kMaxSafeInteger && n <= kMaxSafeInteger;
  }
  return false;
}

// Whether JSON.parse reads the integer as written: it keeps the nearest
// double, so one a double does not hold is read as another number.
bool DoubleHolds(const Json& n) {
  constexpr double kTwo63 = 9223372036854775808.0;
  if (n.is_number_unsigned()) {
    const uint64_t u = n.get<uint64_t>();
    if (u <= (uint64_t{1} << 53)) return true;
    const double d = static_cast<double>(u);
    return d < 2 * kTwo63 && static_cast<uint64_t>(d) == u;
  }
  const int64_t i = n.get<int64_t>();
  if (i >= -(int64_t{1} << 53) && i <= (int64_t{1} << 53)) return true;
  const double d = static_cast<double>(i);
  return d < kTwo63 && static_cast<int64_t>(d) == i;
}

// The pointer of the first integer JSON.parse would read as another
// number, or nullopt. Bounded by the depth the parse accepted.
std::optional<std::string> InexactNumber(const Json& value) {
  if (value.is_number_integer()) {
    return DoubleHolds(value) ? std::nullopt : std::optional<std::string>("");
  }
  if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) {
      if (auto at = InexactNumber(value[i])) {
        return absl::StrCat("/", i, *at);
      }
    }
  } else if (value.is_object()) {
    for (const auto& [key, member] : value.items()) {
      if (auto at = InexactNumber(member)) {
        return absl::StrCat("/", EscapePointerToken(key), *at);
      }
    }
  }
  return std::nullopt;
}

// Whether JavaScript's Number() could read `id` as a number: "1", " 1",
// "0x1", "1e0", "", "Infinity", ... Over-approximated (any digit, any
// "Infinity", or nothing but spaces): a false alarm refuses a batch, a miss
// would pass an unchecked answer.
bool MaybeNumeric(const std::string& id) {
  if (absl::StrContains(id, "Infinity")) return true;
  bool blank = true;
  for (char c : id) {
    if (absl::ascii_isdigit(static_cast<unsigned char>(c))) return true;
    blank &= absl::ascii_isspace(static_cast<unsigned char>(c)) ||
             static_cast<unsigned char>(c) >= 0x80;
  }
  return blank;
}

// Every message of a batch whose id another one also carries. Beside a
// number id, a string id that could read as a number counts as carrying it
// too: clients match answers by id after their own conversions (the MCP
// TypeScript SDK by Number(id)), so 1 and "1" may be one id to them, and
// the unchecked answer of one could stand in for the checked answer of the
// other.
void DenyDuplicateIds(std::vector<McpMessage>* messages) {
  absl::flat_hash_map<std::string, int> seen;
  bool numbers = false;
  for (const McpMessage& m : *messages) {
    if (m.id.is_null()) continue;
    ++seen[CanonicalJson(m.id)];
    numbers |= m.id.is_number();
  }
  auto clash = [&](const McpMessage& m) {
    if (seen[CanonicalJson(m.id)] >= 2) return true;
    if (!numbers) return false;
    if (m.id.is_string()) return MaybeNumeric(m.id.get<std::string>());
    // A number beside a string that could read as a number.
    for (const McpMessage& o : *messages) {
      if (o.id.is_string() && MaybeNumeric(o.id.get<std::string>())) {
        return true;
      }
    }
    return false;
  };
  for (McpMessage& m : *messages) {
    if (m.id.is_null() || !clash(m)) continue;
    m.kind = McpKind::kDeny;
    m.deny_reason = "duplicate_id";
  }
}

// What the engine reads as MCP tools/call params (and nothing else): an
// object holding "name" or "arguments". Anything else it would read as
// another shape of native output, whose calls the tool server never gets.
bool McpParams(const Json& params) {
  return params.is_object() &&
         (params.contains("name") || params.contains("arguments"));
}

McpMessage Classify(const Json& message) {
  if (!message.is_object()) return Deny(nullptr, "", "not_jsonrpc");
  auto given = message.find("id");
  const bool id_valid = given == message.end() || ValidId(*given);
  const Json id =
      given != message.end() && id_valid ? *given : Json(nullptr);
  auto version = message.find("jsonrpc");
  if (version == message.end() || *version != "2.0") {
    return Deny(id, "", "not_jsonrpc");
  }
  auto method = message.find("method");
  if (method == message.end()) return Deny(id, "", "not_a_request");
  if (!method->is_string()) return Deny(id, "", "not_jsonrpc");
  const std::string name = method->get<std::string>();
  if (!id_valid) return Deny(nullptr, name, "not_jsonrpc");
  if (name == "tools/call") {
    auto params = message.find("params");
    if (params == message.end() || !McpParams(*params)) {
      return Deny(id, name, "invalid_params");
    }
    McpMessage m;
    m.kind = McpKind::kToolCall;
    m.id = id;
    m.method = name;
    // Params the native reader refuses (a name that is no string, no
    // arguments, a second shape) still go to the gate as they are: it
    // refuses them there with its own violation.
    const Json& p = *params;
    auto tool = p.find("name");
    if (tool != p.end() && tool->is_string()) m.tool = tool->get<std::string>();
    auto arguments = p.find("arguments");
    if (arguments != p.end()) m.arguments_json = CanonicalJson(*arguments);
    m.params_json = CanonicalJson(p);
    return m;
  }
  if (IsPassThroughMethod(name)) {
    McpMessage m;
    m.kind = McpKind::kPassThrough;
    m.id = id;
    m.method = name;
    return m;
  }
  return Deny(id, name, "method_not_allowed");
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

absl::StatusOr<std::string> PercentDecode(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    const int hi = i + 2 < s.size() ? HexValue(s[i + 1]) : -1;
    const int lo = i + 2 < s.size() ? HexValue(s[i + 2]) : -1;
    if (hi < 0 || lo < 0) return absl::NotFoundError("bad percent escape");
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

// A name a server could read as another: the separators of paths,
// queries, fragments and path parameters, an escape (decoded twice), a
// control character, a dot segment, or bytes that are not UTF-8 (no tool
// is named so, and a message naming it would not be the name sent).
bool SafeToolName(absl::string_view name) {
  if (name.empty() || name == "." || name == "..") return false;
  if (FindInvalidUtf8(name) != absl::string_view::npos) return false;
  for (char c : name) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || c == '/' || c == '\\' || c == '?' ||
        c == '#' || c == '%' || c == ';') {
      return false;
    }
  }
  return true;
}

// number_inexact (with its pointer) for the first integer JSON.parse
// would read as another number.
absl::Status ExactNumbers(const Json& parsed) {
  std::optional<std::string> at = InexactNumber(parsed);
  if (!at.has_value()) return absl::OkStatus();
  return MakeJsonError(
      kNumberInexact, *at,
      absl::StrCat("the integer at \"", *at,
                   "\" is not one a JSON.parse reader holds (it would read "
                   "the nearest double, another number)"));
}

}  // namespace

bool IsPassThroughMethod(absl::string_view method) {
  if (absl::StartsWith(method, "notifications/")) return true;
  for (absl::string_view m : kPassThrough) {
    if (m == method) return true;
  }
  return false;
}

absl::StatusOr<Json> ReadMeshJson(absl::string_view body,
                                  const JsonLimits& limits) {
  absl::StatusOr<Json> parsed = ParseStrictJson(body, limits);
  if (!parsed.ok()) return parsed.status();
  if (absl::Status s = ExactNumbers(*parsed); !s.ok()) return s;
  return parsed;
}

McpRequest ReadMcpRequest(absl::string_view body, const JsonLimits& limits) {
  McpRequest out;
  out.empty = body.empty();
  absl::StatusOr<Json> parsed = ParseStrictJson(body, limits);
  if (!parsed.ok()) {
    out.status = parsed.status();
    return out;
  }
  if (parsed->is_object()) {
    auto id = parsed->find("id");
    if (id != parsed->end() && ValidId(*id)) out.id = *id;
  }
  out.status = ExactNumbers(*parsed);
  if (!out.status.ok()) return out;
  if (!parsed->is_array()) {
    out.body.messages.push_back(Classify(*parsed));
    return out;
  }
  if (parsed->empty()) {
    out.status = MakeJsonError("invalid_batch", "", "an empty JSON-RPC batch");
    return out;
  }
  out.body.batch = true;
  out.body.messages.reserve(parsed->size());
  for (const Json& message : *parsed) {
    out.body.messages.push_back(Classify(message));
  }
  DenyDuplicateIds(&out.body.messages);
  return out;
}

McpRequest ReadMcpMessage(const Json& message) {
  McpRequest out;
  if (message.is_object()) {
    auto id = message.find("id");
    if (id != message.end() && ValidId(*id)) out.id = *id;
  }
  out.status = ExactNumbers(message);
  if (!out.status.ok()) return out;
  out.body.messages.push_back(Classify(message));
  return out;
}

absl::StatusOr<McpBody> ReadMcpBody(absl::string_view body,
                                    const JsonLimits& limits) {
  McpRequest request = ReadMcpRequest(body, limits);
  if (!request.status.ok()) return request.status;
  return std::move(request.body);
}

Json RequestIdOf(absl::string_view body, const JsonLimits& limits) {
  return ReadMcpRequest(body, limits).id;
}

absl::StatusOr<std::string> MatchToolPath(absl::string_view path_template,
                                          absl::string_view path) {
  constexpr absl::string_view kHole = "{name}";
  const size_t hole = path_template.find(kHole);
  if (hole == absl::string_view::npos ||
      path_template.find(kHole, hole + 1) != absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("toolgate_tool_path \"", path_template,
                     "\" must hold exactly one {name} segment"));
  }
  const absl::string_view prefix = path_template.substr(0, hole);
  const absl::string_view suffix = path_template.substr(hole + kHole.size());
  if (path.size() <= prefix.size() + suffix.size() ||
      !absl::StartsWith(path, prefix) || !absl::EndsWith(path, suffix)) {
    return absl::NotFoundError(
        absl::StrCat("path ", path, " does not match ", path_template));
  }
  const absl::string_view raw =
      path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  // The raw segment may hold escapes; decoded, the name may not (a '%'
  // there was encoded twice).
  absl::StatusOr<std::string> name = PercentDecode(raw);
  if (!name.ok() || !SafeToolName(*name) ||
      !SafeToolName(absl::StrReplaceAll(raw, {{"%", "_"}}))) {
    return absl::NotFoundError(absl::StrCat(
        "path ", path, " does not name one tool in ", path_template,
        " (a name is UTF-8, holds no '/', '\\', '?', '#', '%', ';' or "
        "control character, encoded or not, and is not . or ..)"));
  }
  return name;
}

bool QueryOrFragment(absl::string_view path) {
  return path.find_first_of("?#") != absl::string_view::npos;
}

}  // namespace mesh
}  // namespace toolgate
