#include "core/gate/coerce.h"

#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "core/gate/argument_walk.h"

namespace toolgate {
namespace {

constexpr int64_t kMaxSafeInteger = int64_t{1} << 53;

std::optional<Json> IntegerFromText(absl::string_view text) {
  absl::string_view digits = text;
  if (!digits.empty() && digits[0] == '-') digits.remove_prefix(1);
  if (digits.empty() || digits.size() > 16) return std::nullopt;
  for (char c : digits) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) {
      return std::nullopt;
    }
  }
  if (digits[0] == '0' && digits.size() > 1) return std::nullopt;
  int64_t n = 0;
  if (!absl::SimpleAtoi(text, &n) || n > kMaxSafeInteger ||
      n < -kMaxSafeInteger) {
    return std::nullopt;
  }
  return Json(n);
}

}  // namespace

std::optional<Json> CoercedValue(Coercion coercion, absl::string_view text) {
  switch (coercion) {
    case Coercion::kIntegerFromString:
      return IntegerFromText(text);
    case Coercion::kBooleanFromString:
      if (text == "true") return Json(true);
      if (text == "false") return Json(false);
      return std::nullopt;
  }
  return std::nullopt;
}

void CoerceArguments(GateResult* result) {
  for (CheckedCall& call : result->calls) {
    if (call.tool == nullptr || !call.raw.error.ok()) continue;
    const ArgumentPolicy* policy = call.tool->spec.policy.arguments.get();
    if (policy == nullptr || policy->coerce.empty()) continue;
    for (const auto& [pointer, coercion] : policy->coerce) {
      ForEachAt(call.raw.arguments, pointer,
                [&, c = coercion](Json& value, const std::string& at) {
                  if (!value.is_string()) return;
                  std::optional<Json> coerced =
                      CoercedValue(c, value.get_ref<const std::string&>());
                  if (!coerced.has_value()) return;
                  value = *std::move(coerced);
                  call.raw.coercions.push_back(at);
                });
    }
  }
}

}  // namespace toolgate
