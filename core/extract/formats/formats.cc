#include "core/extract/formats/formats.h"

#include "core/extract/formats/formats_internal.h"
#include "core/extract/formats/frame.h"

namespace toolgate {
namespace extract {
namespace {

using formats::Family;

constexpr Family kFamilies[] = {
    {TextFormat::kHermes, CallSource::kHermes, formats::kHermesOpen, true,
     '\0', formats::ReadHermesBlock},
    {TextFormat::kMistral, CallSource::kMistral, formats::kMistralOpen, true,
     '\0', formats::ReadMistralBlock},
    {TextFormat::kLlama3Json, CallSource::kLlama3Json, formats::kLlamaOpen,
     false, '{', formats::ReadLlamaBlock},
    {TextFormat::kPythonic, CallSource::kPythonic, formats::kPythonOpen, false,
     '[', formats::ReadPythonicBlock},
    {TextFormat::kGranite, CallSource::kGranite, formats::kGraniteOpen, true,
     '\0', formats::ReadGraniteBlock},
    {TextFormat::kDeepSeekV3, CallSource::kDeepSeekV3,
     formats::kDeepSeekCallsBegin, true, '\0', formats::ReadDeepSeekBlock},
};

}  // namespace

ExtractionResult ReadDeclaredFormat(absl::string_view text, TextFormat format,
                                    repair::RepairPolicy policy,
                                    const ExtractLimits& limits) {
  formats::ReadOptions options;
  options.policy = policy;
  options.json = limits.json;
  for (const Family& family : kFamilies) {
    if (family.format == format) {
      return formats::ReadFramed(text, family, options,
                                 limits.max_input_bytes);
    }
  }
  ExtractionResult refused;
  refused.error.code = std::string(kNoToolCall);
  refused.error.message = "no declared text format to read the output in";
  return refused;
}

}  // namespace extract
}  // namespace toolgate
