#include "core/extract/text_format.h"

namespace toolgate {
namespace extract {
namespace {

struct Names {
  TextFormat format;
  absl::string_view name;
  absl::string_view proto;
};

constexpr Names kNames[] = {
    {TextFormat::kUnspecified, "unspecified", "TEXT_FORMAT_UNSPECIFIED"},
    {TextFormat::kHermes, "hermes", "TEXT_FORMAT_HERMES"},
    {TextFormat::kMistral, "mistral", "TEXT_FORMAT_MISTRAL"},
    {TextFormat::kLlama3Json, "llama3_json", "TEXT_FORMAT_LLAMA3_JSON"},
    {TextFormat::kPythonic, "pythonic", "TEXT_FORMAT_PYTHONIC"},
    {TextFormat::kGranite, "granite", "TEXT_FORMAT_GRANITE"},
    {TextFormat::kDeepSeekV3, "deepseek_v3", "TEXT_FORMAT_DEEPSEEK_V3"},
};

}  // namespace

absl::string_view TextFormatName(TextFormat format) {
  for (const Names& n : kNames) {
    if (n.format == format) return n.name;
  }
  return "unrecognized";
}

absl::string_view TextFormatProtoName(TextFormat format) {
  for (const Names& n : kNames) {
    if (n.format == format) return n.proto;
  }
  return "TEXT_FORMAT_UNRECOGNIZED";
}

std::optional<TextFormat> ParseTextFormat(absl::string_view name) {
  for (const Names& n : kNames) {
    if (name == n.name || name == n.proto) return n.format;
  }
  return std::nullopt;
}

}  // namespace extract
}  // namespace toolgate
