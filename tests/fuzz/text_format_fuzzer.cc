// ReadDeclaredFormat on arbitrary text, one grammar per input.
//
// Byte 0 selects the format (low bits, modulo the six declared formats)
// and the policy (bit 3: SYNTAX_REPAIR); the rest is the model's text.
//
// Invariant: a read succeeds only when the text is exactly a complete call
// list of that grammar (formats.h). Checked as:
//  * ok() exactly when there are calls; a failure carries a documented
//    code and a message; reading is deterministic;
//  * every call has a non-empty name, object arguments whose canonical JSON
//    re-parses strictly to the same value, the format's name as its source,
//    an id only in Mistral (nine ASCII letters and digits); STRICT and
//    pythonic report no repairs;
//  * the block is complete and alone: the text without its last
//    non-space byte is refused (every grammar ends in a closer: ']', '}',
//    ')', "</tool_call>", DeepSeek's end token); another family's marker
//    after it is refused; the text twice is refused (except Hermes, where
//    adjacent tags are parallel calls);
//  * the calls are the grammar's: rendered again in the format (where it
//    can express them) they read back identically;
//  * repair never changes a strict success: what STRICT reads, SYNTAX_REPAIR
//    reads identically, with no repairs.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "absl/strings/ascii.h"
#include "core/extract/formats/formats.h"
#include "core/extract/formats/render.h"
#include "tests/fuzz/fuzz_support.h"

namespace toolgate {
namespace {

using extract::ExtractedCall;
using extract::ExtractionResult;
using extract::TextFormat;
using repair::RepairPolicy;

void CheckShape(const ExtractionResult& r, TextFormat format,
                RepairPolicy policy) {
  static const std::set<std::string>* const kCodes = new std::set<std::string>{
      "no_tool_call",        "truncated_output",   "not_a_tool_call",
      "invalid_json",        "duplicate_key",      "nesting_too_deep",
      "number_out_of_range", "number_inexact",     "input_too_large",
      "ambiguous_output",    "malformed_tool_call", "unsupported_syntax"};
  FUZZ_CHECK(r.ok() == !r.calls.empty(), "ok()=%d with %zu calls", r.ok(),
             r.calls.size());
  if (!r.ok()) {
    FUZZ_CHECK(kCodes->count(r.error.code) == 1, "undocumented code \"%s\"",
               r.error.code.c_str());
    FUZZ_CHECK(!r.error.message.empty(), "code %s without a message",
               r.error.code.c_str());
    return;
  }
  for (const ExtractedCall& call : r.calls) {
    FUZZ_CHECK(!call.name.empty(), "a call with an empty name");
    FUZZ_CHECK(call.arguments.is_object(), "arguments of %s are %s",
               call.name.c_str(), JsonTypeName(call.arguments).data());
    fuzz::CheckCanonicalRoundTrip(call.arguments, "arguments");
    FUZZ_CHECK(call.source_name() == extract::TextFormatName(format),
               "source %s read as %s", call.source_name().data(),
               extract::TextFormatName(format).data());
    FUZZ_CHECK(call.id.empty() || (format == TextFormat::kMistral &&
                                   call.id.size() == 9),
               "id \"%s\" in %s", call.id.c_str(),
               extract::TextFormatName(format).data());
    FUZZ_CHECK(call.repairs.empty() || (policy == RepairPolicy::kSyntaxRepair &&
                                        format != TextFormat::kPythonic),
               "repairs under %s", extract::TextFormatName(format).data());
  }
}

bool SameCalls(const ExtractionResult& a, const ExtractionResult& b) {
  if (a.calls.size() != b.calls.size()) return false;
  for (size_t i = 0; i < a.calls.size(); ++i) {
    if (a.calls[i].name != b.calls[i].name || a.calls[i].id != b.calls[i].id ||
        a.calls[i].arguments != b.calls[i].arguments) {
      return false;
    }
  }
  return true;
}

void CheckComplete(absl::string_view text, TextFormat format,
                   RepairPolicy policy, const ExtractionResult& r) {
  const absl::string_view trimmed = absl::StripTrailingAsciiWhitespace(text);
  FUZZ_CHECK(!trimmed.empty(), "calls read from blank text");
  const ExtractionResult cut = extract::ReadDeclaredFormat(
      trimmed.substr(0, trimmed.size() - 1), format, policy);
  FUZZ_CHECK(!cut.ok(), "the text without its last byte still reads");
  for (const char* marker : {"\n<tool_call>", "\n[TOOL_CALLS]",
                             "\n<|python_tag|>", "\n<|tool_call|>"}) {
    const ExtractionResult more = extract::ReadDeclaredFormat(
        std::string(text) + marker, format, policy);
    FUZZ_CHECK(!more.ok(), "a marker after the calls (%s) is accepted",
               marker + 1);
  }
  if (format != TextFormat::kHermes) {
    const std::string twice = std::string(text) + "\n" + std::string(text);
    FUZZ_CHECK(!extract::ReadDeclaredFormat(twice, format, policy).ok(),
               "the text twice reads as one output");
  }
}

void CheckRerender(TextFormat format, RepairPolicy policy,
                   const ExtractionResult& r) {
  std::vector<extract::CallToRender> calls;
  for (const ExtractedCall& c : r.calls) {
    calls.push_back({c.name, c.arguments, c.id});
  }
  absl::StatusOr<std::string> text = extract::RenderCalls(format, calls);
  if (!text.ok() || text->find("</think>") != std::string::npos) return;
  // Escapes may make the rendering longer than the input was.
  extract::ExtractLimits limits;
  limits.max_input_bytes = size_t{1} << 30;
  limits.json = fuzz::RereadLimits();
  limits.json.max_depth = extract::ExtractLimits().json.max_depth;
  const ExtractionResult again =
      extract::ReadDeclaredFormat(*text, format, policy, limits);
  FUZZ_CHECK(again.ok(), "the calls rendered again are refused (%s: %s)",
             again.error.code.c_str(), again.error.message.c_str());
  FUZZ_CHECK(SameCalls(r, again), "the calls rendered again read otherwise");
}

}  // namespace
}  // namespace toolgate

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolgate;
  if (size < 1) return 0;
  const TextFormat format =
      extract::kDeclaredFormats[(data[0] & 7) % 6];
  const RepairPolicy policy = (data[0] & 8) != 0
                                  ? RepairPolicy::kSyntaxRepair
                                  : RepairPolicy::kStrict;
  const absl::string_view text = fuzz::AsText(data + 1, size - 1);
  const ExtractionResult r = extract::ReadDeclaredFormat(text, format, policy);
  CheckShape(r, format, policy);
  const ExtractionResult twice =
      extract::ReadDeclaredFormat(text, format, policy);
  FUZZ_CHECK(r.ok() == twice.ok() && SameCalls(r, twice) &&
                 r.error.code == twice.error.code,
             "not deterministic");
  if (!r.ok()) return 0;
  CheckComplete(text, format, policy, r);
  CheckRerender(format, policy, r);
  if (policy == RepairPolicy::kStrict) {
    const ExtractionResult repaired = extract::ReadDeclaredFormat(
        text, format, RepairPolicy::kSyntaxRepair);
    FUZZ_CHECK(repaired.ok() && SameCalls(r, repaired),
               "SYNTAX_REPAIR reads a strict success otherwise");
    for (const ExtractedCall& c : repaired.calls) {
      FUZZ_CHECK(c.repairs.empty(), "repairs on strict JSON");
    }
  }
  return 0;
}
