#include "core/output/output.h"

#include <exception>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/json/strict_json.h"
#include "core/output/internal/body_checks.h"
#include "core/output/internal/markup_scan.h"
#include "core/output/internal/string_scan.h"
#include "core/schema/schema.h"

namespace toolgate {
namespace output {
namespace {

constexpr absl::string_view kStructuredContent = "/structuredContent";

// An error member that carries something: not null, false, 0, "", [] or {}.
bool CarriesError(const Json& value) {
  if (value.is_null()) return false;
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_number()) return value != 0;
  // json::empty() is false for every string, "" included.
  if (value.is_string()) return !value.get_ref<const std::string&>().empty();
  if (value.is_array() || value.is_object()) return !value.empty();
  return true;
}

// A flag that says yes however it is spelled: true, 1, or a string such as
// "true", "yes", "ok", "success" (any case, spaces around ignored). A tool
// that writes "success": "true" means it as much as true.
bool ReadsAsYes(const Json& value) {
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_number()) return value == 1;
  if (!value.is_string()) return false;
  const std::string word = absl::AsciiStrToLower(
      absl::StripAsciiWhitespace(value.get_ref<const std::string&>()));
  for (absl::string_view yes : {"true", "yes", "1", "ok", "success"}) {
    if (word == yes) return true;
  }
  return false;
}

bool FlagSaysYes(const Json& object, const char* key) {
  if (!object.is_object()) return false;
  auto it = object.find(key);
  return it != object.end() && ReadsAsYes(*it);
}

// "status" naming a failure in the convention tools use for it (JSend:
// "error", "fail"). Words for the state of a thing ("failed", "cancelled")
// are data and do not count.
bool StatusSaysError(const Json& status) {
  if (!status.is_string()) return false;
  const std::string word = absl::AsciiStrToLower(
      absl::StripAsciiWhitespace(status.get_ref<const std::string&>()));
  return word == "error" || word == "fail";
}

// Runs the checks of one ValidateToolOutput call, appending to `result`.
class Validator {
 public:
  Validator(const OutputRequest& request, const OutputSpec* spec,
            const OutputLimits& limits, OutputResult* result)
      : request_(request), spec_(spec), limits_(limits), result_(result) {}

  void Run() {
    if (spec_ == nullptr) {
      Add("unknown_tool", "",
          absl::StrCat("tool \"", request_.tool_name,
                       "\" is not in the run's snapshot"));
    }
    CheckEnvelope();
    if (!CheckBytes()) return;
    auto parsed = ParseStrictJson(request_.body, JsonLimits{
                                      limits_.max_body_bytes,
                                      limits_.max_depth});
    if (!parsed.ok()) {
      Add(JsonErrorCode(parsed.status()), JsonErrorPointer(parsed.status()),
          std::string(parsed.status().message()));
      return;
    }
    CheckDocument(*parsed);
  }

  // Records a failure. Past the cap the verdict still turns INVALID.
  OutputViolation* Add(absl::string_view code, std::string pointer,
                       std::string message) {
    invalid_ = true;
    if (result_->violations.size() >= limits_.max_violations) {
      return &overflow_;
    }
    OutputViolation& v = result_->violations.emplace_back();
    v.code = std::string(code);
    v.pointer = std::move(pointer);
    v.message = std::move(message);
    return &v;
  }

  bool invalid() const { return invalid_; }

 private:
  void CheckEnvelope() {
    std::string problem = internal::CheckHttpStatus(request_.http_status);
    if (!problem.empty()) {
      OutputViolation* v = Add("http_status", "", std::move(problem));
      v->expected = "2xx";
      v->received = absl::StrCat(request_.http_status);
    }
    problem = internal::CheckContentType(request_.content_type);
    if (!problem.empty()) {
      OutputViolation* v = Add("content_type", "", std::move(problem));
      v->expected = "application/json";
      v->received = internal::Excerpt(request_.content_type, 0,
                                      limits_.max_excerpt_bytes);
    }
  }

  // Size, markup and UTF-8; false when the body must not be parsed.
  bool CheckBytes() {
    const absl::string_view body = request_.body;
    if (body.size() > limits_.max_body_bytes) {
      OutputViolation* v = Add(
          "output_too_large", "",
          absl::StrCat("body is ", body.size(), " bytes; the limit is ",
                       limits_.max_body_bytes));
      v->expected = absl::StrCat("<= ", limits_.max_body_bytes, " bytes");
      v->received = absl::StrCat(body.size(), " bytes");
      return false;
    }
    const size_t bad = internal::FindInvalidUtf8(body);
    if (internal::LooksLikeMarkupBody(body)) {
      OutputViolation* v =
          Add("markup_body", "", "body is markup (HTML or XML), not JSON");
      v->expected = "JSON";
      v->received = bad == absl::string_view::npos
                        ? internal::Excerpt(body, 0, limits_.max_excerpt_bytes)
                        : internal::HexBytes(body, 0, 16);
      return false;
    }
    if (bad != absl::string_view::npos) {
      OutputViolation* v = Add("invalid_utf8", "",
                               absl::StrCat("invalid UTF-8 at byte ", bad));
      v->expected = "UTF-8";
      v->received = internal::HexBytes(body, bad, 4);
      return false;
    }
    return true;
  }

  void CheckDocument(const Json& doc) {
    const bool is_mcp = ReadsAsMcp(doc);
    const Json* payload = &doc;
    std::string prefix;
    if (is_mcp) {
      CheckMcpResult(doc);
      auto it = doc.find("structuredContent");
      payload = it == doc.end() ? nullptr : &*it;
      prefix = std::string(kStructuredContent);
    } else if (FlagSaysYes(doc, "isError")) {
      // Not read as a CallToolResult, but the tool still says it failed.
      Add("mcp_is_error", "/isError", "the tool reported an error")->received =
          TruncatedJson(doc.at("isError"), limits_.max_excerpt_bytes);
    }
    if (payload != nullptr) {
      if (is_mcp && FlagSaysYes(*payload, "isError")) {
        Add("mcp_is_error", absl::StrCat(prefix, "/isError"),
            "the tool's structuredContent reports an error")
            ->received =
            TruncatedJson(payload->at("isError"), limits_.max_excerpt_bytes);
      }
      CheckSuccessWrapper(*payload, prefix);
      CheckErrorStatus(*payload, prefix);
    }
    ScanStrings(doc);
    if (spec_ != nullptr && spec_->output_schema != nullptr) {
      CheckSchema(doc, is_mcp, payload, prefix);
    }
  }

  ResultFormat Format() const {
    return spec_ == nullptr ? ResultFormat::kDetect : spec_->format;
  }

  bool ReadsAsMcp(const Json& doc) {
    const ResultFormat format = Format();
    if (format == ResultFormat::kPlain) return false;
    auto content = doc.is_object() ? doc.find("content") : doc.end();
    const bool shaped =
        doc.is_object() && content != doc.end() && content->is_array();
    if (format == ResultFormat::kMcp && !shaped) {
      Add("mcp_malformed_result", "",
          "MCP tool result is not an object with a \"content\" array");
    }
    return shaped;
  }

  void CheckMcpResult(const Json& doc) {
    const Json& content = doc.at("content");
    for (size_t i = 0; i < content.size(); ++i) {
      auto type = content[i].is_object() ? content[i].find("type")
                                         : content[i].end();
      if (!content[i].is_object() || type == content[i].end() ||
          !type->is_string()) {
        Add("mcp_malformed_result", absl::StrCat("/content/", i),
            "MCP content item is not an object with a string \"type\"");
      }
    }
    auto is_error = doc.find("isError");
    if (is_error == doc.end()) return;
    if (!is_error->is_boolean()) {
      Add("mcp_malformed_result", "/isError", "MCP isError is not a boolean")
          ->received = TruncatedJson(*is_error, limits_.max_excerpt_bytes);
    } else if (is_error->get<bool>()) {
      Add("mcp_is_error", "/isError", "the MCP tool reported an error")
          ->received = "true";
    }
  }

  void CheckSuccessWrapper(const Json& payload, const std::string& prefix) {
    if (!payload.is_object()) return;
    auto status = payload.find("status");
    const bool status_ok =
        status != payload.end() && status->is_string() && ReadsAsYes(*status);
    if (!FlagSaysYes(payload, "ok") && !FlagSaysYes(payload, "success") &&
        !status_ok) {
      return;
    }
    for (const char* key : {"error", "errors"}) {
      auto it = payload.find(key);
      if (it == payload.end() || !CarriesError(*it)) continue;
      OutputViolation* v =
          Add("error_in_success_wrapper", absl::StrCat(prefix, "/", key),
              absl::StrCat("a success flag sits next to a non-empty \"", key,
                           "\""));
      v->expected = "no error next to ok/success true";
      v->received = TruncatedJson(*it, limits_.max_excerpt_bytes);
    }
  }

  void CheckErrorStatus(const Json& payload, const std::string& prefix) {
    if (!payload.is_object()) return;
    auto status = payload.find("status");
    if (status == payload.end() || !StatusSaysError(*status)) return;
    OutputViolation* v = Add("error_status", absl::StrCat(prefix, "/status"),
                             "the tool reported an error in \"status\"");
    v->expected = "a status other than \"error\" or \"fail\"";
    v->received = TruncatedJson(*status, limits_.max_excerpt_bytes);
  }

  void ScanStrings(const Json& doc) {
    const bool check_markup =
        spec_ == nullptr || !spec_->allow_markup_in_strings;
    internal::ForEachString(doc, [&](const std::string& pointer,
                                     const std::string& text) {
      if (check_markup) CheckMarkup(pointer, text);
      for (const internal::PatternMatch& hit : internal::FindInjections(text)) {
        if (result_->findings.size() >= limits_.max_findings) break;
        result_->findings.push_back(
            Finding{std::string(hit.code), pointer, ExcerptAround(text, hit)});
      }
      return true;
    });
  }

  // One markup_in_string per string holding markup. The HTML parse is
  // bounded per output (OutputLimits); a string past the bound is not
  // parsed and, since it could not be checked, counts as markup.
  void CheckMarkup(const std::string& pointer, const std::string& text) {
    const size_t first = internal::FindTagOpener(text);
    if (first == absl::string_view::npos) return;    // Text to any HTML parser.
    if (internal::HoldsOnlyInertTags(text)) return;  // Vec<String> and kin.
    // Past the cap another violation changes nothing: skip the parse.
    if (result_->violations.size() >= limits_.max_violations) return;
    const size_t tags = internal::CountTagOpeners(text);
    if (tags > markup_tags_left_ || text.size() > markup_bytes_left_) {
      OutputViolation* v =
          Add("markup_in_string", pointer,
              absl::StrCat("string holds ", tags, " tag-like \"<\" in ",
                           text.size(),
                           " bytes, past what the markup check "
                           "parses per output; not checked, so not trusted"));
      v->expected = absl::StrCat("at most ", limits_.max_markup_tags,
                                 " tags and ", limits_.max_markup_bytes,
                                 " bytes of strings with tags per output");
      v->received = ExcerptAround(text, {"", first, 1});
      return;
    }
    markup_tags_left_ -= tags;
    markup_bytes_left_ -= text.size();
    internal::PatternMatch m;
    std::string what;
    if (!internal::FindMarkupInString(text, &m, &what)) return;
    OutputViolation* v = Add("markup_in_string", pointer,
                             absl::StrCat("string holds HTML markup: ", what));
    v->expected = "data, not HTML markup";
    v->received = ExcerptAround(text, m);
  }

  std::string ExcerptAround(const std::string& text,
                            const internal::PatternMatch& m) const {
    const size_t lead = limits_.max_excerpt_bytes / 4;
    const size_t start = m.start > lead ? m.start - lead : 0;
    return internal::Excerpt(text, start, limits_.max_excerpt_bytes);
  }

  void CheckSchema(const Json& doc, bool is_mcp, const Json* payload,
                   const std::string& prefix) {
    if (is_mcp && payload == nullptr) {
      OutputViolation* v = Add(
          "missing_structured_content", std::string(kStructuredContent),
          "the tool declares an output schema but returned no "
          "structuredContent");
      v->expected = "structuredContent matching the output schema";
      v->received = "absent";
      return;
    }
    if (!is_mcp) payload = &doc;
    std::vector<schema::SchemaViolation> found;
    const bool ok = spec_->output_schema->Validate(
        *payload, schema::ValidationMode::kAllErrors, limits_.max_violations,
        &found);
    for (schema::SchemaViolation& sv : found) {
      OutputViolation* v =
          Add("output_schema", absl::StrCat(prefix, sv.instance_pointer),
              std::move(sv.message));
      v->keyword = std::move(sv.keyword);
      v->schema_pointer = std::move(sv.schema_pointer);
      v->expected = std::move(sv.expected);
      v->received = std::move(sv.received);
    }
    // A failed validation that explains nothing is still a failure.
    if (!ok && found.empty()) {
      Add("output_schema", prefix, "output does not match the output schema");
    }
  }

  const OutputRequest& request_;
  const OutputSpec* spec_;
  const OutputLimits& limits_;
  OutputResult* result_;
  bool invalid_ = false;
  OutputViolation overflow_;  // Sink for violations past the cap.
  // What is left of the markup check's per-output parse budget.
  size_t markup_tags_left_ = limits_.max_markup_tags;
  size_t markup_bytes_left_ = limits_.max_markup_bytes;
};

}  // namespace

OutputResult ValidateToolOutput(const OutputRequest& request,
                                const OutputSpec* spec,
                                const OutputLimits& limits) {
  OutputResult result;
  Validator validator(request, spec, limits, &result);
  try {
    validator.Run();
  } catch (const std::exception& e) {
    validator.Add("internal_error", "",
                  absl::StrCat("output validation failed: ", e.what()));
  } catch (...) {
    validator.Add("internal_error", "", "output validation failed");
  }
  if (!validator.invalid()) {
    result.verdict = OutputVerdict::kValid;
    return result;
  }
  result.verdict = OutputVerdict::kInvalid;
  result.stop_reason = std::string(kStopReasonInvalidToolOutput);
  if (request.mode == OutputMode::kDegrade) {
    result.safe_mode = std::string(kSafeModeSkipWrites);
  }
  return result;
}

}  // namespace output
}  // namespace toolgate
