// The output gate: ValidateToolOutput on arbitrary tool responses.
//
// Input: two option bytes, then the body.
//   byte 0: bits 0-2 HTTP status, bits 3-5 content type, bit 6 DEGRADE
//           mode, bit 7 allow markup in strings;
//   byte 1: bits 0-1 the tool (none, an HTTP tool with an output schema, an
//           MCP tool with one, a tool without), bits 2-3 result format.
//
// Invariants (output.h):
//  * VALID only when every check ran and passed, re-checked here from the
//    outside: the tool is known, the status is 2xx (or no-HTTP), the
//    content type is JSON, the body parses strictly within the limits, no
//    top-level isError is true, an MCP result is well formed, no success
//    flag sits next to an error, and the payload validates against the
//    tool's output schema;
//  * INVALID has 1..max_violations violations with documented codes, the
//    invalid_tool_output stop reason, and skip_writes exactly in DEGRADE;
//  * pointers of violations and findings name locations in the body;
//  * the result depends on the request only (a second call agrees).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "core/output/output.h"
#include "core/snapshot/snapshot.h"
#include "schemas/embedded_examples.h"
#include "tests/fuzz/fuzz_support.h"

namespace toolgate {
namespace {

using output::OutputResult;
using output::OutputVerdict;

constexpr int kStatuses[] = {200, 201, 299, output::kNoHttpStatus,
                             0,   199, 302, 500};
struct ContentType {
  const char* value;
  bool json;
};
constexpr ContentType kContentTypes[] = {
    {"application/json", true},
    {"application/json; charset=utf-8", true},
    {"application/problem+json", true},
    {"Application/JSON", true},
    {"", false},
    {"text/html", false},
    {"application/json; charset=iso-8859-1", false},
    {"text/json", false},
};

struct Tools {
  SnapshotStore store;
  std::shared_ptr<const Snapshot> billing;
  std::shared_ptr<const Snapshot> customers;
};

const Tools& Examples() {
  static Tools* const kTools = [] {
    auto* tools = new Tools;
    for (const EmbeddedManifest& m : EmbeddedExampleManifests()) {
      auto s = tools->store.Create(m.contents, ManifestFormat::kAuto, m.name);
      FUZZ_CHECK(s.ok(), "example %s: %s", m.name,
                 std::string(s.status().message()).c_str());
      if (std::string(m.name) == "billing") tools->billing = *s;
      if (std::string(m.name) == "customers") tools->customers = *s;
    }
    FUZZ_CHECK(tools->billing && tools->customers, "examples missing");
    return tools;
  }();
  return *kTools;
}

const CompiledTool* PickTool(int which) {
  switch (which) {
    case 1:
      return Examples().billing->FindTool("get_invoice");
    case 2:
      return Examples().customers->FindTool("get_customer");
    case 3:
      return Examples().customers->FindTool("delete_ticket");
    default:
      return nullptr;
  }
}

bool IsTrueMember(const Json& doc, const char* key) {
  auto it = doc.is_object() ? doc.find(key) : doc.end();
  return doc.is_object() && it != doc.end() && it->is_boolean() &&
         it->get<bool>();
}

bool CarriesError(const Json& v) {
  if (v.is_null()) return false;
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v != 0;
  // README: "" carries no error (json::empty() is false for any string).
  if (v.is_string()) return !v.get_ref<const std::string&>().empty();
  return !v.empty();
}

// Everything a VALID verdict claims, checked without the validator.
void CheckValid(const output::OutputRequest& request,
                const output::OutputSpec* spec, const ContentType& type,
                const output::OutputLimits& limits) {
  FUZZ_CHECK(spec != nullptr, "VALID for an unknown tool");
  const int status = request.http_status;
  FUZZ_CHECK(status == output::kNoHttpStatus || (status >= 200 && status < 300),
             "VALID with HTTP status %d", status);
  FUZZ_CHECK(type.json, "VALID with content type \"%s\"", type.value);
  const absl::StatusOr<Json> doc = ParseStrictJson(
      request.body, JsonLimits{limits.max_body_bytes, limits.max_depth});
  FUZZ_CHECK(doc.ok(), "VALID body is not strict JSON: %s",
             std::string(doc.status().message()).c_str());
  FUZZ_CHECK(!IsTrueMember(*doc, "isError"), "VALID with isError true");
  const bool shaped = doc->is_object() && doc->contains("content") &&
                      (*doc)["content"].is_array();
  const bool mcp = spec->format != output::ResultFormat::kPlain && shaped;
  FUZZ_CHECK(spec->format != output::ResultFormat::kMcp || shaped,
             "VALID MCP result without a content array");
  const Json* payload = doc.operator->();
  if (mcp) {
    for (const Json& item : (*doc)["content"]) {
      FUZZ_CHECK(
          item.is_object() && item.contains("type") && item["type"].is_string(),
          "VALID MCP result with a malformed content item");
    }
    FUZZ_CHECK(!doc->contains("isError") || (*doc)["isError"].is_boolean(),
               "VALID MCP result with a non-boolean isError");
    auto it = doc->find("structuredContent");
    payload = it == doc->end() ? nullptr : &*it;
  }
  if (payload != nullptr && payload->is_object() &&
      (IsTrueMember(*payload, "ok") || IsTrueMember(*payload, "success"))) {
    for (const char* key : {"error", "errors"}) {
      FUZZ_CHECK(!payload->contains(key) || !CarriesError((*payload)[key]),
                 "VALID with a success flag next to a non-empty \"%s\"", key);
    }
  }
  if (spec->output_schema != nullptr) {
    FUZZ_CHECK(payload != nullptr,
               "VALID without the structuredContent the "
               "output schema needs");
    FUZZ_CHECK(spec->output_schema->IsValid(*payload),
               "VALID payload fails the output schema: %s",
               TruncatedJson(*payload, 300).c_str());
  }
}

void CheckInvalid(const OutputResult& r, const output::OutputRequest& request,
                  const output::OutputSpec* spec,
                  const output::OutputLimits& limits) {
  static const std::set<std::string>* const kCodes =
      new std::set<std::string>{"unknown_tool",
                                "http_status",
                                "content_type",
                                "output_too_large",
                                "markup_body",
                                "invalid_utf8",
                                "invalid_json",
                                "truncated_json",
                                "empty_input",
                                "duplicate_key",
                                "nesting_too_deep",
                                "number_out_of_range",
                                "number_inexact",
                                "mcp_malformed_result",
                                "mcp_is_error",
                                "error_status",
                                "error_in_success_wrapper",
                                "markup_in_string",
                                "missing_structured_content",
                                "output_schema",
                                "internal_error"};
  FUZZ_CHECK(
      !r.violations.empty() && r.violations.size() <= limits.max_violations,
      "INVALID with %zu violations (cap %zu)", r.violations.size(),
      limits.max_violations);
  FUZZ_CHECK(r.stop_reason == output::kStopReasonInvalidToolOutput,
             "INVALID with stop_reason \"%s\"", r.stop_reason.c_str());
  const bool degrade = request.mode == output::OutputMode::kDegrade;
  FUZZ_CHECK(r.safe_mode == (degrade ? output::kSafeModeSkipWrites : ""),
             "safe_mode \"%s\" in %s mode", r.safe_mode.c_str(),
             degrade ? "DEGRADE" : "FAIL_CLOSED");
  for (const output::OutputViolation& v : r.violations) {
    FUZZ_CHECK(kCodes->count(v.code) == 1, "undocumented violation code %s",
               v.code.c_str());
    FUZZ_CHECK(v.code != "internal_error", "internal_error: %s",
               v.message.c_str());
  }
  FUZZ_CHECK(spec != nullptr || r.violations[0].code == "unknown_tool",
             "unknown tool reported first as %s", r.violations[0].code.c_str());
}

void CheckPointers(const OutputResult& r, const output::OutputRequest& request,
                   const output::OutputLimits& limits) {
  static const std::set<std::string>* const kInBody = new std::set<std::string>{
      "mcp_malformed_result", "mcp_is_error", "error_in_success_wrapper",
      "markup_in_string", "output_schema"};
  const absl::StatusOr<Json> doc = ParseStrictJson(
      request.body, JsonLimits{limits.max_body_bytes, limits.max_depth});
  if (!doc.ok()) return;
  for (const output::OutputViolation& v : r.violations) {
    if (kInBody->count(v.code) == 0) continue;
    FUZZ_CHECK(fuzz::PointerResolves(*doc, v.pointer),
               "%s violation points at %s, not in the body", v.code.c_str(),
               v.pointer.c_str());
  }
  for (const output::Finding& f : r.findings) {
    FUZZ_CHECK(fuzz::PointerResolves(*doc, f.pointer),
               "%s finding points at %s, not in the body", f.code.c_str(),
               f.pointer.c_str());
  }
}

}  // namespace
}  // namespace toolgate

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolgate;  // NOLINT
  if (size < 2) return 0;
  const ContentType& type = kContentTypes[(data[0] >> 3) & 7];
  output::OutputRequest request;
  request.tool_name = "fuzzed_tool";
  request.http_status = kStatuses[data[0] & 7];
  request.content_type = type.value;
  request.mode = (data[0] & 0x40) ? output::OutputMode::kDegrade
                                  : output::OutputMode::kFailClosed;
  request.body = fuzz::AsText(data + 2, size - 2);

  const CompiledTool* tool = PickTool(data[1] & 3);
  output::OutputSpec spec_value;
  const output::OutputSpec* spec = nullptr;
  if (tool != nullptr) {
    spec_value.output_schema = tool->output.get();
    spec_value.format =
        static_cast<output::ResultFormat>(((data[1] >> 2) & 3) % 3);
    spec_value.allow_markup_in_strings = (data[0] & 0x80) != 0;
    spec = &spec_value;
  }
  output::OutputLimits limits;
  limits.max_body_bytes = 2048;  // Reachable by fuzz inputs.
  limits.max_depth = 32;
  limits.max_violations = 4;
  limits.max_findings = 4;

  const OutputResult r = output::ValidateToolOutput(request, spec, limits);
  FUZZ_CHECK(r.findings.size() <= limits.max_findings, "%zu findings",
             r.findings.size());
  if (r.verdict == OutputVerdict::kValid) {
    FUZZ_CHECK(
        r.violations.empty() && r.stop_reason.empty() && r.safe_mode.empty(),
        "VALID with %zu violations, stop_reason \"%s\"", r.violations.size(),
        r.stop_reason.c_str());
    CheckValid(request, spec, type, limits);
  } else {
    CheckInvalid(r, request, spec, limits);
  }
  CheckPointers(r, request, limits);

  const OutputResult again = output::ValidateToolOutput(request, spec, limits);
  FUZZ_CHECK(again.verdict == r.verdict &&
                 again.violations.size() == r.violations.size() &&
                 again.findings.size() == r.findings.size(),
             "a second identical call decides differently");
  return 0;
}
