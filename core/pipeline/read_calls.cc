#include "core/pipeline/read_calls.h"

#include <memory>
#include <string>
#include <utility>

#include "core/extract/formats/formats.h"
#include "core/repair/repair.h"

namespace toolgate {
namespace pipeline {
namespace {

ReadError FromExtraction(extract::ExtractionError error) {
  return ReadError{std::move(error.code), std::move(error.pointer),
                   std::move(error.message)};
}

extract::ExtractLimits ExtractLimitsFor(const EngineOptions& options) {
  extract::ExtractLimits limits;
  limits.max_input_bytes = options.limits.max_bytes;
  limits.json = options.limits;
  return limits;
}

RawCall ToRawCall(extract::ExtractedCall c, int candidates_seen) {
  RawCall call;
  call.id = std::move(c.id);
  call.name = std::move(c.name);
  call.source = std::string(c.source_name());
  call.arguments = std::move(c.arguments);
  call.repairs = std::move(c.repairs);
  call.candidates_seen = candidates_seen;
  return call;
}

RawCalls ParseText(const extract::CandidateSet& candidates,
                   repair::RepairPolicy policy, const JsonLimits& limits) {
  RawCalls out;
  if (!candidates.ok()) {
    out.error = FromExtraction(candidates.error);
    return out;
  }
  for (const extract::Candidate& candidate : candidates.authoritative()) {
    extract::ExtractedCall call;
    extract::ExtractionError error =
        extract::ReadCandidate(candidate, policy, limits, &call);
    if (!error.code.empty()) {
      out.calls.clear();  // One unreadable call refuses the whole output.
      out.error = FromExtraction(std::move(error));
      return out;
    }
    out.calls.push_back(ToRawCall(std::move(call), candidates.candidates_seen));
  }
  return out;
}

// A declared format: its reader parses the calls too (under the policy,
// for the families that write JSON).
RawCalls ParseDeclared(absl::string_view text, extract::TextFormat format,
                       repair::RepairPolicy policy,
                       const extract::ExtractLimits& limits) {
  extract::ExtractionResult read =
      extract::ReadDeclaredFormat(text, format, policy, limits);
  RawCalls out;
  if (!read.ok()) {
    out.error = FromExtraction(std::move(read.error));
    return out;
  }
  out.calls.reserve(read.calls.size());
  for (extract::ExtractedCall& c : read.calls) {
    out.calls.push_back(ToRawCall(std::move(c), read.candidates_seen));
  }
  return out;
}

}  // namespace

absl::Status AssembleStream(CallContext& call) {
  const ValidateCallRequest& request = call.request;
  if (request.kind != OutputKind::kStream) return call.NotApplicable();
  if (request.assembled != nullptr) {
    call.stream = request.assembled;
  } else {
    std::unique_ptr<stream::Assembler> assembler = stream::Assembler::Create(
        request.stream_format, StreamLimitsFor(call.services.options));
    // A long stream is read with the caller's cancellation checked now
    // and then (a clock read per check), like the other bounded loops.
    size_t n = 0;
    for (absl::string_view event : request.stream_events) {
      if (++n % 1024 == 0) {
        if (absl::Status s = request.cancel.Check(); !s.ok()) return s;
      }
      assembler->Add(event);
    }
    call.assembly = assembler->Finish();
    call.stream = &call.assembly;
  }
  const stream::Assembly& assembly = *call.stream;
  if (!assembly.error.ok()) {
    // Nothing is read from a refused stream: the error is the output's.
    call.kind = OutputKind::kUnset;
    call.calls.error = ReadError{assembly.error.code, assembly.error.pointer,
                                 assembly.error.message};
    return absl::OkStatus();
  }
  call.kind = assembly.native ? OutputKind::kNative : OutputKind::kText;
  call.output = assembly.output;
  return absl::OkStatus();
}

absl::Status ExtractCandidates(CallContext& call) {
  if (call.kind != OutputKind::kText ||
      call.text_format != extract::TextFormat::kUnspecified) {
    return call.NotApplicable();  // A declared format is read by ParseCalls.
  }
  call.candidates = extract::FindCandidates(
      call.output, ExtractLimitsFor(call.services.options));
  return absl::OkStatus();
}

absl::Status ParseCalls(CallContext& call) {
  const JsonLimits& limits = call.services.options.limits;
  if (call.kind == OutputKind::kUnset) return absl::OkStatus();  // Refused.
  if (call.kind == OutputKind::kNative) {
    call.calls = ReadNativeCalls(call.output, limits);
  } else {
    const repair::RepairPolicy policy = call.request.syntax_repair
                                            ? repair::RepairPolicy::kSyntaxRepair
                                            : repair::RepairPolicy::kStrict;
    call.calls =
        call.text_format == extract::TextFormat::kUnspecified
            ? ParseText(call.candidates, policy, limits)
            : ParseDeclared(call.output, call.text_format, policy,
                            ExtractLimitsFor(call.services.options));
  }
  if (call.stream != nullptr) {
    // Where the calls came from is the stream, whatever shape it made.
    const std::string source = stream::SourceName(call.request.stream_format);
    for (RawCall& c : call.calls.calls) c.source = source;
  }
  return absl::OkStatus();
}

}  // namespace pipeline
}  // namespace toolgate
