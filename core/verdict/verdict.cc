#include "core/verdict/verdict.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/extract/scan.h"
#include "core/verdict/default_result_schema.h"

namespace toolgate {
namespace verdict {
namespace {

using SchemaPtr = std::shared_ptr<const schema::Schema>;

VerdictResult Stop(VerdictResult result, absl::string_view reason,
                   std::string message) {
  result.outcome = Outcome::kContractStop;
  result.stop_reason = std::string(reason);
  result.message = std::move(message);
  result.result = nullptr;
  result.result_json.clear();
  return result;
}

absl::string_view StopForTruncation(extract::Truncation truncation) {
  switch (truncation) {
    case extract::Truncation::kUnclosedReasoning:
    case extract::Truncation::kPartialTag:
      return kUnclosedReasoning;
    default:
      return kUnclosedResultBlock;
  }
}

// Blocks toolgate's scan found but CommonMark does not read as code blocks
// (inside an HTML comment, swallowed by another block) are not results.
std::string UnreadNote(int unread_blocks) {
  if (unread_blocks == 0) return "";
  return absl::StrCat(" (", unread_blocks,
                      " ```json block(s) that CommonMark does not read as "
                      "code blocks, e.g. inside an HTML comment, were not "
                      "read)");
}

absl::string_view StopForJsonCode(absl::string_view code) {
  if (code == kTruncatedJson) return kTruncatedResultBlock;
  if (code == toolgate::kDuplicateKey) return kDuplicateKey;
  if (code == kEmptyInput) return kEmptyResultBlock;
  return kUnparseableResultBlock;
}

// Only these three exact strings are verdicts: "PASS", "passed", true and
// null are not "pass", whatever a custom schema allows.
std::optional<Outcome> VerdictOf(const Json& result) {
  if (!result.is_object()) return std::nullopt;
  const auto it = result.find("verdict");
  if (it == result.end() || !it->is_string()) return std::nullopt;
  const std::string& v = it->get_ref<const std::string&>();
  if (v == "pass") return Outcome::kPass;
  if (v == "fail") return Outcome::kFail;
  if (v == "refused") return Outcome::kRefused;
  return std::nullopt;
}

schema::SchemaViolation VerdictViolation(const Json& result) {
  schema::SchemaViolation v;
  const bool has = result.is_object() && result.contains("verdict");
  v.instance_pointer = result.is_object() ? "/verdict" : "";
  v.keyword = has ? "enum" : (result.is_object() ? "required" : "type");
  v.expected = result.is_object() ? "enum: pass | fail | refused"
                                  : "object with \"verdict\"";
  v.received = has ? TruncatedJson(result["verdict"])
                   : (result.is_object() ? "missing" : TruncatedJson(result));
  v.message =
      "the result block needs \"verdict\": exactly \"pass\", \"fail\" or "
      "\"refused\"";
  return v;
}

VerdictResult Judge(VerdictResult result, Json value,
                    const schema::Schema& result_schema,
                    const VerdictLimits& limits) {
  if (!result_schema.Validate(value, schema::ValidationMode::kAllErrors,
                              limits.max_violations, &result.violations)) {
    return Stop(std::move(result), kResultBlockInvalid,
                "the result block does not match the result schema");
  }
  const std::optional<Outcome> outcome = VerdictOf(value);
  if (!outcome.has_value()) {
    result.violations.push_back(VerdictViolation(value));
    return Stop(std::move(result), kResultBlockInvalid,
                "the result block has no valid verdict");
  }
  result.outcome = *outcome;
  result.result_json = CanonicalJson(value);
  result.result = std::move(value);
  return result;
}

absl::StatusOr<SchemaPtr> CompileDefault() {
  absl::StatusOr<Json> parsed = ParseStrictJson(DefaultResultSchemaJson());
  if (!parsed.ok()) {
    return absl::InternalError(absl::StrCat(
        "embedded result_block.schema.json: ", parsed.status().message()));
  }
  absl::StatusOr<SchemaPtr> compiled = schema::Schema::Compile(*parsed);
  if (!compiled.ok()) {
    return absl::InternalError(absl::StrCat(
        "embedded result_block.schema.json: ", compiled.status().message()));
  }
  return compiled;
}

}  // namespace

absl::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass: return "PASS";
    case Outcome::kFail: return "FAIL";
    case Outcome::kRefused: return "REFUSED";
    case Outcome::kContractStop: return "CONTRACT_STOP";
  }
  return "CONTRACT_STOP";
}

absl::string_view DefaultResultSchemaJson() {
  return internal::kDefaultResultSchemaJson;
}

absl::StatusOr<SchemaPtr> DefaultResultSchema() {
  // Compiled once; the Schema is immutable and shared across threads.
  static const auto* const kCompiled =
      new absl::StatusOr<SchemaPtr>(CompileDefault());
  return *kCompiled;
}

absl::StatusOr<SchemaPtr> CompileResultSchema(
    absl::string_view result_schema_json) {
  if (absl::StripAsciiWhitespace(result_schema_json).empty()) {
    return DefaultResultSchema();
  }
  absl::StatusOr<Json> parsed = ParseStrictJson(result_schema_json);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "result_schema is not strict JSON: ", parsed.status().message()));
  }
  absl::StatusOr<SchemaPtr> compiled = schema::Schema::Compile(*parsed);
  if (!compiled.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "result_schema does not compile: ", compiled.status().message()));
  }
  return compiled;
}

VerdictResult ExtractVerdict(absl::string_view envelope,
                             const schema::Schema& result_schema,
                             repair::RepairPolicy policy,
                             const VerdictLimits& limits) {
  VerdictResult result;
  if (envelope.size() > limits.max_envelope_bytes) {
    return Stop(std::move(result), kEnvelopeTooLarge,
                absl::StrCat("envelope is ", envelope.size(),
                             " bytes; the limit is ",
                             limits.max_envelope_bytes));
  }
  extract::ScanOptions fences_only;
  fences_only.tags = false;
  fences_only.react = false;
  fences_only.bare_objects = false;
  const extract::ScanResult scan =
      extract::ScanCandidates(envelope, fences_only);
  result.blocks_found = static_cast<int>(scan.candidates.size());
  if (scan.truncation != extract::Truncation::kNone) {
    return Stop(std::move(result), StopForTruncation(scan.truncation),
                absl::StrCat("the envelope was cut off: ",
                             scan.truncation_message));
  }
  if (scan.candidates.empty()) {
    return Stop(std::move(result), kNoResultBlock,
                absl::StrCat("no fenced JSON result block (```json ... ```) "
                             "found",
                             UnreadNote(scan.unread_blocks)));
  }
  if (scan.last_fence_line != absl::string_view::npos &&
      scan.last_fence_line >= scan.candidates.back().end) {
    return Stop(std::move(result), kResultBlockNotLast,
                absl::StrCat("a code block that is not a JSON result block "
                             "(e.g. ```jsonc, indented, quoted, in a list "
                             "item, in an HTML comment or inside <think>) "
                             "follows the last ```json block",
                             UnreadNote(scan.unread_blocks)));
  }
  // The newline before the closing fence is not part of the JSON; without
  // it a value cut off inside a string reads as truncated, not malformed.
  const absl::string_view block =
      absl::StripTrailingAsciiWhitespace(scan.candidates.back().json);
  if (absl::StripAsciiWhitespace(block).empty()) {
    return Stop(std::move(result), kEmptyResultBlock,
                "the last fenced JSON block is empty");
  }
  repair::ParsedJson parsed = repair::ParseJson(block, policy, limits.json);
  result.repairs = std::move(parsed.repairs);
  if (!parsed.ok()) {
    return Stop(std::move(result), StopForJsonCode(parsed.code),
                absl::StrCat("the last fenced JSON block: ", parsed.message));
  }
  return Judge(std::move(result), std::move(parsed.value), result_schema,
               limits);
}

absl::StatusOr<VerdictResult> ExtractVerdict(
    absl::string_view envelope, absl::string_view result_schema_json,
    repair::RepairPolicy policy, const VerdictLimits& limits) {
  absl::StatusOr<SchemaPtr> compiled = CompileResultSchema(result_schema_json);
  if (!compiled.ok()) return compiled.status();
  return ExtractVerdict(envelope, **compiled, policy, limits);
}

}  // namespace verdict
}  // namespace toolgate
