#include "core/extract/extract.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/json/utf8.h"

namespace toolgate {
namespace extract {
namespace {

std::string MapJsonCode(absl::string_view code) {
  if (code == toolgate::kTruncatedJson) return std::string(kTruncatedOutput);
  if (code == toolgate::kEmptyInput) return std::string(kInvalidJson);
  return std::string(code);
}

ExtractionError Error(absl::string_view code, std::string pointer,
                      std::string message) {
  ExtractionError error;
  error.code = std::string(code);
  error.pointer = std::move(pointer);
  error.message = std::move(message);
  return error;
}

// OpenAI writes arguments as a string; it must hold exactly one object,
// parsed strictly whatever the policy ("" is not {}).
ExtractionError ReadArguments(const Json& args, const JsonLimits& limits,
                              ExtractedCall* call) {
  if (args.is_object()) {
    call->arguments = args;
    return {};
  }
  if (!args.is_string()) {
    return Error(kNotAToolCall, "/arguments",
                 absl::StrCat("\"arguments\" must be an object (or a string "
                              "holding one), found ",
                              JsonTypeName(args)));
  }
  absl::StatusOr<Json> inner =
      ParseStrictJson(args.get_ref<const std::string&>(), limits);
  if (!inner.ok()) {
    return Error(MapJsonCode(JsonErrorCode(inner.status())),
                 absl::StrCat("/arguments", JsonErrorPointer(inner.status())),
                 absl::StrCat("the \"arguments\" string is not strict JSON: ",
                              inner.status().message()));
  }
  if (!inner->is_object()) {
    return Error(kNotAToolCall, "/arguments",
                 absl::StrCat("the \"arguments\" string holds ",
                              JsonTypeName(*inner), ", not an object"));
  }
  call->arguments = *std::move(inner);
  call->arguments_was_string = true;
  return {};
}

// Exactly {"name", "arguments"}: an extra member may carry meaning the
// executor would act on without it having been validated.
ExtractionError ReadCallObject(const Json& value, const JsonLimits& limits,
                               ExtractedCall* call) {
  if (!value.is_object()) {
    return Error(kNotAToolCall, "",
                 absl::StrCat("expected a call object {\"name\", "
                              "\"arguments\"}, found ",
                              JsonTypeName(value)));
  }
  for (const auto& member : value.items()) {
    if (member.key() != "name" && member.key() != "arguments") {
      return Error(kNotAToolCall, "/" + EscapePointerToken(member.key()),
                   absl::StrCat("unexpected member \"", member.key(),
                                "\" in a call object"));
    }
  }
  const auto name = value.find("name");
  if (name == value.end() || !name->is_string() ||
      name->get_ref<const std::string&>().empty()) {
    return Error(kNotAToolCall, "/name",
                 "a call needs \"name\": a non-empty string");
  }
  const auto args = value.find("arguments");
  if (args == value.end()) {
    return Error(kNotAToolCall, "/arguments",
                 "a call needs \"arguments\" (use {} for none)");
  }
  call->name = name->get<std::string>();
  return ReadArguments(*args, limits, call);
}

// The last candidate, or the run of tags it ends (parallel calls). Only
// tags separated by white space form a run: an example tag in the prose
// before the real one is scratchpad, like any earlier candidate.
size_t AuthoritativeBegin(absl::string_view text,
                          const std::vector<Candidate>& candidates) {
  size_t first = candidates.size() - 1;
  if (candidates[first].source != CallSource::kToolCallTag) return first;
  while (first > 0) {
    const Candidate& prev = candidates[first - 1];
    const absl::string_view between =
        text.substr(prev.end, candidates[first].begin - prev.end);
    if (prev.source != CallSource::kToolCallTag ||
        !absl::StripAsciiWhitespace(between).empty()) {
      break;
    }
    --first;
  }
  return first;
}

ExtractionResult Fail(ExtractionResult result, ExtractionError error) {
  result.calls.clear();
  result.error = std::move(error);
  return result;
}

}  // namespace

ExtractionError ReadCandidate(const Candidate& candidate,
                              repair::RepairPolicy policy,
                              const JsonLimits& limits, ExtractedCall* call) {
  call->source = candidate.source;
  if (!candidate.defect_code.empty()) {
    return Error(candidate.defect_code, "", candidate.defect_message);
  }
  repair::ParsedJson parsed = repair::ParseJson(candidate.json, policy, limits);
  if (!parsed.ok()) {
    return Error(MapJsonCode(parsed.code), parsed.pointer, parsed.message);
  }
  call->repairs = std::move(parsed.repairs);
  if (candidate.source != CallSource::kReact) {
    return ReadCallObject(parsed.value, limits, call);
  }
  if (candidate.react_name.empty()) {
    return Error(kNotAToolCall, "", "the Action line names no tool");
  }
  // No tool's name is ill-formed UTF-8, and every later step (messages,
  // audit, the wire) needs well-formed text: refuse it here, by name.
  if (FindInvalidUtf8(candidate.react_name) != absl::string_view::npos) {
    return Error(kNotAToolCall, "",
                 "the Action line's tool name is not valid UTF-8");
  }
  if (!parsed.value.is_object()) {
    return Error(kNotAToolCall, "",
                 absl::StrCat("the Action Input must be a JSON object, found ",
                              JsonTypeName(parsed.value)));
  }
  call->name = candidate.react_name;
  call->arguments = std::move(parsed.value);
  return {};
}

CandidateSet FindCandidates(absl::string_view text,
                            const ExtractLimits& limits) {
  CandidateSet set;
  if (text.size() > limits.max_input_bytes) {
    set.error =
        Error(kInputTooLarge, "",
              absl::StrCat("output is ", text.size(), " bytes; the limit is ",
                           limits.max_input_bytes));
    return set;
  }
  set.scan = ScanCandidates(text);
  const ScanResult& scan = set.scan;
  set.candidates_seen = static_cast<int>(scan.candidates.size());
  if (scan.truncation != Truncation::kNone) {
    set.error = Error(
        kTruncatedOutput, "",
        absl::StrCat("the output was cut off: ", scan.truncation_message));
  } else if (scan.candidates.empty()) {
    set.error = Error(kNoToolCall, "",
                      "no tool call found: expected <tool_call> tags, a "
                      "```json block, Action/Action Input lines, or a "
                      "{\"name\", \"arguments\"} object");
  } else if (scan.last_fence_line != absl::string_view::npos &&
             scan.last_fence_line >= scan.candidates.back().end) {
    set.error = Error(kTrailingCodeBlock, "",
                      "a code block follows the last tool call (a non-JSON, "
                      "indented, quoted, listed, commented or reasoning "
                      "fence): the final call is ambiguous; end the output "
                      "with the call");
  } else {
    set.first = AuthoritativeBegin(text, scan.candidates);
    return set;
  }
  set.first = scan.candidates.size();  // None is authoritative.
  return set;
}

ExtractionResult ExtractToolCalls(absl::string_view text,
                                  repair::RepairPolicy policy,
                                  const ExtractLimits& limits) {
  ExtractionResult result;
  const CandidateSet set = FindCandidates(text, limits);
  result.candidates_seen = set.candidates_seen;
  if (!set.ok()) return Fail(std::move(result), set.error);
  const absl::Span<const Candidate> candidates = set.authoritative();
  for (size_t i = 0; i < candidates.size(); ++i) {
    ExtractedCall call;
    ExtractionError error =
        ReadCandidate(candidates[i], policy, limits.json, &call);
    if (!error.code.empty()) {
      error.call_index = static_cast<int>(i);
      return Fail(std::move(result), std::move(error));
    }
    call.candidates_seen = result.candidates_seen;
    result.calls.push_back(std::move(call));
  }
  return result;
}

}  // namespace extract
}  // namespace toolgate
