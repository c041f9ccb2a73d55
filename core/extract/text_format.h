// The call syntaxes of model families, as a run or a request declares them
// (toolgate.v1.TextFormat; docs/formats.md).
//
// kUnspecified reads today's shapes (core/extract/extract.h); any other
// value reads that family's grammar and nothing else
// (core/extract/formats/formats.h). kUnrecognized stands for a wire value
// this build does not name: the engine refuses it as INVALID_ARGUMENT, so
// an unknown format is never read as kUnspecified.
//
// Thread-safety: constants and pure functions.
#ifndef TOOLGATE_CORE_EXTRACT_TEXT_FORMAT_H_
#define TOOLGATE_CORE_EXTRACT_TEXT_FORMAT_H_

#include <optional>

#include "absl/strings/string_view.h"

namespace toolgate {
namespace extract {

enum class TextFormat {
  kUnspecified,
  kHermes,
  kMistral,
  kLlama3Json,
  kPythonic,
  kGranite,
  kDeepSeekV3,
  kUnrecognized,
};

// "hermes", "mistral", "llama3_json", "pythonic", "granite", "deepseek_v3";
// "unspecified" and "unrecognized" for the other two. A declared format's
// name is also the `source` of the calls read in it.
absl::string_view TextFormatName(TextFormat format);

// "TEXT_FORMAT_PYTHONIC", ...: the proto enum's name (audit payloads).
absl::string_view TextFormatProtoName(TextFormat format);

// A name as TextFormatName or TextFormatProtoName writes it (also
// "unspecified" / "TEXT_FORMAT_UNSPECIFIED"); nullopt for anything else,
// "unrecognized" included.
std::optional<TextFormat> ParseTextFormat(absl::string_view name);

// The formats a request may declare (kUnspecified and kUnrecognized are
// not among them), in enum order.
inline constexpr TextFormat kDeclaredFormats[] = {
    TextFormat::kHermes,  TextFormat::kMistral, TextFormat::kLlama3Json,
    TextFormat::kPythonic, TextFormat::kGranite, TextFormat::kDeepSeekV3,
};

}  // namespace extract
}  // namespace toolgate

#endif  // TOOLGATE_CORE_EXTRACT_TEXT_FORMAT_H_
